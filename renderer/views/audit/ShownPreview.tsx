import { PreviewSchema } from '../../../shared/approval';
import { VisibleText } from '../common/VisibleText';
import { PreviewPanel } from '../approvals/PreviewPanel';

/** Lines of a recorded diff drawn before "Show all". */
const DIFF_LINES_SHOWN = 400;

/**
 * What the person was shown when asked, re-drawn from the approval-requested record: a parsed
 * command, a delete or a request as the approvals view draws them; a file change as its unified
 * diff, or (the gate records only a diff's counts) its path and counts.
 */
export function ShownPreview({ preview }: { preview: unknown }) {
  if (typeof preview !== 'object' || preview === null) return <p className="note">The record holds no preview.</p>;
  const recorded = preview as Record<string, unknown>;
  if (recorded.kind === 'diff') {
    const path = typeof recorded.path === 'string' ? recorded.path : '(no path)';
    const added = typeof recorded.added === 'number' ? recorded.added : undefined;
    const removed = typeof recorded.removed === 'number' ? recorded.removed : undefined;
    return (
      <section className="preview recorded-diff" aria-label="Recorded change">
        <h4>
          Changes to <code data-testid="detail-diff-path"><VisibleText text={path} /></code>
          {added !== undefined || removed !== undefined ? (
            <span className="diff-counts" data-testid="detail-diff-counts">
              {' '}
              <span className="diff-added">+{added ?? 0}</span> <span className="diff-removed">−{removed ?? 0}</span>
            </span>
          ) : null}
        </h4>
        {typeof recorded.unified === 'string' ? (
          <UnifiedDiff unified={recorded.unified} />
        ) : (
          <p className="note">The log keeps a change&apos;s counts, not its text; the file&apos;s content is not stored in the audit.</p>
        )}
      </section>
    );
  }
  // A command recorded as its line only (no parsed sub-commands): the line, as text.
  if (recorded.kind === 'command' && typeof recorded.command === 'string' && !Array.isArray(recorded.commands)) {
    return (
      <section className="preview" aria-label="Recorded command">
        <h4>Command</h4>
        <pre className="detail-json" data-testid="detail-command">
          <VisibleText text={recorded.command} />
        </pre>
      </section>
    );
  }
  const parsed = PreviewSchema.safeParse(preview);
  if (parsed.success) return <PreviewPanel preview={parsed.data} />;
  return (
    <pre className="detail-json">
      <VisibleText text={JSON.stringify(preview, null, 2)} />
    </pre>
  );
}

/** A unified diff as text, added and removed lines coloured; never run as markup. */
export function UnifiedDiff({ unified }: { unified: string }) {
  const lines = unified.split('\n');
  const shown = lines.slice(0, DIFF_LINES_SHOWN);
  return (
    <pre className="unified-diff" data-testid="detail-diff">
      {shown.map((line, index) => (
        <span key={index} className={line.startsWith('+') ? 'diff-line-added' : line.startsWith('-') ? 'diff-line-removed' : line.startsWith('@@') ? 'diff-line-hunk' : undefined}>
          <VisibleText text={line} />
          {'\n'}
        </span>
      ))}
      {lines.length > shown.length ? <span className="note">… {lines.length - shown.length} more lines</span> : null}
    </pre>
  );
}
