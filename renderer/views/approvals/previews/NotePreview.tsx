import type { Preview } from '../../../../shared/approval';
import { VisibleText } from '../../common/VisibleText';

type NotePreviewData = Extract<Preview, { kind: 'note' }>;

/** The memory note a call would keep or delete: its text as it would be stored, and its tags. */
export function NotePreview({ preview }: { preview: NotePreviewData }) {
  return (
    <section className="preview preview-note" aria-label="Preview">
      <h4>{preview.action === 'store' ? 'Note to keep' : `Note ${preview.id ?? ''} to delete`}</h4>
      {preview.writtenBy ? <p className="note-author">written by {preview.writtenBy}</p> : null}
      <pre data-testid="note-text">
        <VisibleText text={preview.text} />
      </pre>
      {preview.tags.length > 0 ? (
        <p className="note-tags" data-testid="note-tags">
          tags: <VisibleText text={preview.tags.join(', ')} />
        </p>
      ) : null}
    </section>
  );
}
