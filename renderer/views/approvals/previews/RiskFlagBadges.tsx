import type { RiskFlag, RiskFlagKind } from '../../../../shared/commandPreview';
import { VisibleText } from '../../common/VisibleText';

/** What each flag says on its badge. */
const FLAG_LABELS: Record<RiskFlagKind, string> = {
  'download-to-shell': 'download piped to a shell',
  privilege: 'runs as another user',
  'recursive-delete': 'recursive delete',
  'runs-hidden-code': 'runs code not shown here',
  network: 'network',
  'outside-workspace': 'writes outside the workspace',
  'environment-prefix': 'environment prefix',
  background: 'background job',
};

/** Characters of evidence shown on a badge (the rest is in its tooltip and in the listing below). */
const EVIDENCE_CHARS = 80;

/** The risk flags of a command line as badges, each with the first thing that raised it. */
export function RiskFlagBadges({ flags }: { flags: readonly RiskFlag[] }) {
  if (flags.length === 0) return null;
  return (
    <ul className="risk-flags" data-testid="risk-flags" aria-label="Risks">
      {flags.map((flag) => {
        const first = flag.evidence[0] ?? '';
        const more = flag.evidence.length - 1;
        return (
          <li key={flag.kind} className={`risk-flag risk-${flag.kind}`} data-flag={flag.kind} title={flag.evidence.join('\n')}>
            <strong>{FLAG_LABELS[flag.kind]}</strong>{' '}
            <code className="flag-evidence">
              <VisibleText text={first.length > EVIDENCE_CHARS ? `${first.slice(0, EVIDENCE_CHARS)}…` : first} />
            </code>
            {more > 0 ? <span className="flag-more"> and {more} more</span> : null}
            {/* Read out or copied, one badge does not run into the next. */}
            {' '}
          </li>
        );
      })}
    </ul>
  );
}
