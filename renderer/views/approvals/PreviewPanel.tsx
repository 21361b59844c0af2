import { useState } from 'react';
import type { Preview } from '../../../shared/approval';
import { countDiffLines, formatDiffStats } from '../../format/diffStats';
import { VisibleText } from '../common/VisibleText';
import { MonacoDiff } from './MonacoDiff';
import { EditableDiff, type DiffEditing } from './edit/EditableDiff';
import { CommandPreview } from './previews/CommandPreview';
import { DeletePreview } from './previews/DeletePreview';
import { NotePreview } from './previews/NotePreview';
import { RequestPreview } from './previews/RequestPreview';

/**
 * What the call would change: a file diff, what a delete removes, a parsed command, a request, a
 * memory note; or why there is no preview. With `editing`, a file diff's new content is editable in its right pane.
 */
export function PreviewPanel({ preview, editing }: { preview: Preview; editing?: DiffEditing }) {
  if (preview.kind === 'delete') return <DeletePreview preview={preview} />;
  if (preview.kind === 'command') return <CommandPreview preview={preview} />;
  if (preview.kind === 'request') return <RequestPreview preview={preview} />;
  if (preview.kind === 'note') return <NotePreview preview={preview} />;
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
  return <DiffPreview preview={preview} editing={editing} />;
}

/** Past either limit a diff is summarised first: laying out a huge change could freeze the console. */
export const PREVIEW_LIMITS = { lines: 10_000, bytes: 1024 * 1024 };

/** Lines and size of a change, counted without rendering it. */
export function changeSize(preview: { before: string; after: string }): { lines: number; bytes: number } {
  const lines = Math.max(countLines(preview.before), countLines(preview.after));
  // UTF-16 length is near enough to bytes for a limit, and needs no encoding of megabytes of text.
  return { lines, bytes: preview.before.length + preview.after.length };
}

function countLines(text: string): number {
  if (text === '') return 0;
  let lines = 1;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}

function DiffPreview({ preview, editing }: { preview: Extract<Preview, { kind: 'diff' }>; editing?: DiffEditing }) {
  const size = changeSize(preview);
  const large = size.lines > PREVIEW_LIMITS.lines || size.bytes > PREVIEW_LIMITS.bytes;
  const [shown, setShown] = useState(!large);
  const stats = countDiffLines(preview.unified);
  if (!shown) {
    return (
      <section className="preview preview-large" aria-label="Preview">
        <DiffHeading preview={preview} stats={stats} />
        <p data-testid="large-diff-summary">
          A large change: {size.lines.toLocaleString('en-US')} lines, {(size.bytes / (1024 * 1024)).toFixed(1)} MB of text. It is not
          drawn until you ask, so the console stays responsive.
        </p>
        <button type="button" data-testid="show-large-diff" onClick={() => setShown(true)}>
          Show anyway
        </button>
      </section>
    );
  }
  return (
    <section className="preview" aria-label="Preview">
      <DiffHeading preview={preview} stats={stats} />
      {editing ? (
        <EditableDiff path={preview.path} before={preview.before} after={preview.after} created={!preview.exists} {...editing} />
      ) : (
        <MonacoDiff path={preview.path} before={preview.before} after={preview.after} created={!preview.exists} />
      )}
      <details className="unified-diff">
        <summary>Unified diff</summary>
        <pre data-testid="unified-diff">
          <VisibleText text={preview.unified} />
        </pre>
      </details>
    </section>
  );
}

/** The file a diff is of, whether it is new, and its lines added and removed. */
function DiffHeading({ preview, stats }: { preview: Extract<Preview, { kind: 'diff' }>; stats: { added: number; removed: number } }) {
  return (
    <h4>
      <span className="file-path" data-testid="diff-path">
        <VisibleText text={preview.path} />
      </span>
      {preview.exists ? null : <span className="new-file">new file</span>}
      <span className="diff-stats" data-testid="diff-stats" title={`${formatDiffStats(stats)}: lines added and removed`}>
        <span className="added">+{stats.added}</span> <span className="removed">{'\u2212'}{stats.removed}</span>
      </span>
    </h4>
  );
}
