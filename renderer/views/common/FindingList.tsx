import type { TextFinding } from '../../../shared/upstream';
import { VisibleText } from './VisibleText';
import { countOf } from '../../../shared/plural';

/** "1 finding", "3 findings". */
export function countFindings(count: number): string {
  return countOf(count, 'finding');
}

/**
 * What the gate's checks found in text an upstream server wrote (a definition, a result) that may
 * be aimed at the model rather than at the person: each finding's kind, where, why, and the text.
 */
export function FindingList({ findings, where, testId }: { findings: readonly TextFinding[]; where: string; testId?: string }) {
  if (findings.length === 0) return null;
  return (
    <div className="upstream-findings" role="group" aria-label={`${countFindings(findings.length)} ${where}`} data-testid={testId}>
      <h5>
        {countFindings(findings.length)} {where}
      </h5>
      <ul>
        {findings.map((finding, index) => (
          <li key={index} data-testid="finding" data-kind={finding.kind}>
            <span className="finding-kind">{finding.kind}</span> in <code>
              <VisibleText text={finding.field} />
            </code>
            : <VisibleText text={finding.message} />
            <pre className="finding-excerpt">
              <VisibleText text={finding.excerpt} />
            </pre>
          </li>
        ))}
      </ul>
    </div>
  );
}
