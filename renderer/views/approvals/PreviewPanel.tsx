import type { Preview } from '../../../shared/approval';
import { countDiffLines, formatDiffStats } from '../../format/diffStats';
import { VisibleText } from '../common/VisibleText';
import { MonacoDiff } from './MonacoDiff';
import { CommandPreview } from './previews/CommandPreview';
import { DeletePreview } from './previews/DeletePreview';
import { RequestPreview } from './previews/RequestPreview';

/** What the call would change: a file diff, what a delete removes, a parsed command, a request; or why there is no preview. */
export function PreviewPanel({ preview }: { preview: Preview }) {
  if (preview.kind === 'delete') return <DeletePreview preview={preview} />;
  if (preview.kind === 'command') return <CommandPreview preview={preview} />;
  if (preview.kind === 'request') return <RequestPreview preview={preview} />;
  if (preview.kind === 'none') {
    return (
      <section className="preview preview-none" aria-label="Preview">
        <h4>Preview</h4>
        <p data-testid="no-preview-reason">
          No preview: <VisibleText text={preview.reason} />
        </p>
      </section>
    );
  }
  const stats = countDiffLines(preview.unified);
  return (
    <section className="preview" aria-label="Preview">
      <h4>
        <span className="file-path" data-testid="diff-path">
          <VisibleText text={preview.path} />
        </span>
        {preview.exists ? null : <span className="new-file">new file</span>}
        <span className="diff-stats" data-testid="diff-stats" title={`${formatDiffStats(stats)}: lines added and removed`}>
          <span className="added">+{stats.added}</span> <span className="removed">{'\u2212'}{stats.removed}</span>
        </span>
      </h4>
      <MonacoDiff path={preview.path} before={preview.before} after={preview.after} created={!preview.exists} />
      <details className="unified-diff">
        <summary>Unified diff</summary>
        <pre data-testid="unified-diff">
          <VisibleText text={preview.unified} />
        </pre>
      </details>
    </section>
  );
}
