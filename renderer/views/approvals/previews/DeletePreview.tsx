import type { Preview } from '../../../../shared/approval';
import { VisibleText } from '../../common/VisibleText';

type DeletePreviewData = Extract<Preview, { kind: 'delete' }>;

/** Everything a delete would remove, with counts and special files by kind, so nobody approves a recursive delete blind. */
export function DeletePreview({ preview }: { preview: DeletePreviewData }) {
  const unlisted = preview.totalEntries - preview.entries.length;
  return (
    <section className="preview preview-delete" aria-label="Preview">
      <h4>
        Delete{' '}
        <span className="file-path" data-testid="delete-path">
          <VisibleText text={preview.path} />
        </span>
        <span className="diff-stats" data-testid="delete-stats">
          {preview.totalEntries} {preview.totalEntries === 1 ? 'entry' : 'entries'}, {preview.totalBytes} bytes
        </span>
      </h4>
      <ul className="delete-entries" data-testid="delete-entries">
        {preview.entries.map((entry) => (
          <li key={entry.path} data-type={entry.type}>
            <span className="entry-type">{entry.kind ?? entry.type}</span> <VisibleText text={entry.path} />
            {entry.type === 'file' ? <span className="entry-bytes"> ({entry.bytes} bytes)</span> : null}
          </li>
        ))}
      </ul>
      {unlisted > 0 ? <p className="delete-more">and {unlisted} more not listed</p> : null}
      {preview.contentHash ? (
        <p className="delete-binding" data-testid="delete-binding">
          Bound to what is listed: if any of it changes before it runs (even a file of the same size), the delete is refused.
          {preview.unhashedFiles ? ` ${preview.unhashedFiles} large ${preview.unhashedFiles === 1 ? 'file is' : 'files are'} bound by inode and change time, not content.` : ''}
        </p>
      ) : null}
    </section>
  );
}
