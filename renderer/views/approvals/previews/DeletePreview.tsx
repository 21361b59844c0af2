import type { Preview } from '../../../../shared/approval';
import { VisibleText } from '../../common/VisibleText';
import { countOf, nounFor } from '../../../../shared/plural';

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
          {countOf(preview.totalEntries, 'entry', { plural: 'entries' })}, {countOf(preview.totalBytes, 'byte')}
        </span>
      </h4>
      <ul className="delete-entries" data-testid="delete-entries">
        {preview.entries.map((entry) => (
          <li key={entry.path} data-type={entry.type}>
            <span className="entry-type">{entry.kind ?? entry.type}</span> <VisibleText text={entry.path} />
            {entry.type === 'file' ? <span className="entry-bytes"> ({countOf(entry.bytes, 'byte')})</span> : null}
          </li>
        ))}
      </ul>
      {unlisted > 0 ? <p className="delete-more">and {unlisted} more not listed</p> : null}
      {preview.contentHash ? (
        <p className="delete-binding" data-testid="delete-binding">
          Bound to what is listed: if any of it changes before it runs (even a file of the same size), the delete is refused.
          {preview.unhashedFiles ? ` ${countOf(preview.unhashedFiles, 'large file')} ${nounFor(preview.unhashedFiles, 'is', 'are')} bound by inode and change time, not content.` : ''}
        </p>
      ) : null}
    </section>
  );
}
