import { useId } from 'react';
import type { ApprovalRequest } from '../../../../shared/approval';
import { VisibleText } from '../../common/VisibleText';
import { HunkToggles } from './HunkToggles';
import type { CallEditing } from './useCallEdit';

/**
 * Editing a call before approving it: its arguments as JSON, and for a file diff which hunks to
 * write (the new content itself is edited in the diff's right pane). One kind of edit at a time.
 * The gate checks every change as it is typed; what is wrong is named by field and keeps Approve
 * disabled, and what the edit changes and how policy judges the edited call are shown.
 */
export function CallEditPanel({ request, editing }: { request: ApprovalRequest; editing: CallEditing }) {
  const argumentsId = useId();
  const { draft, setDraft, check, problems } = editing;
  if (!request.editable) return null;
  const editingArguments = draft.argumentsText !== undefined;
  const contentEdited = draft.content !== undefined;
  const hunksLeftOut = draft.rejectedHunks.length > 0;
  const preview = request.preview;
  const edited = editingArguments || contentEdited || hunksLeftOut;
  const diffEditable = request.editable.content && preview.kind === 'diff';
  // Nothing to show until an edit starts, unless the diff's hunks can be left out: "Edit arguments"
  // sits with the Approve buttons, so a prompt takes no more room than it did.
  if (!edited && !diffEditable) return null;
  return (
    <section className="call-edit" aria-label="Edit before approving" data-testid="call-edit">
      <div className="call-edit-bar">
        <h4>Edit before approving</h4>
        {edited ? (
          <button type="button" onClick={editing.reset}>
            Undo edits
          </button>
        ) : null}
      </div>
      {diffEditable && preview.kind === 'diff' ? (
        <>
          <p className="hint">Type in the diff's right pane to change the new content, or leave hunks out. One kind of edit at a time.</p>
          <HunkToggles
            before={preview.before}
            after={preview.after}
            rejected={draft.rejectedHunks}
            disabled={editingArguments || contentEdited}
            onChange={(rejectedHunks) => setDraft({ ...draft, rejectedHunks })}
          />
        </>
      ) : null}
      {editingArguments ? (
        <>
          <label htmlFor={argumentsId}>Edited arguments (JSON)</label>
          <textarea
            id={argumentsId}
            className="edit-arguments"
            value={draft.argumentsText}
            spellCheck={false}
            rows={Math.min(20, Math.max(3, draft.argumentsText!.split('\n').length))}
            aria-invalid={problems.length > 0}
            onChange={(event) => setDraft({ ...draft, argumentsText: event.target.value })}
          />
        </>
      ) : null}
      {problems.length > 0 ? (
        <ul className="rule-problems" role="alert" data-testid="edit-problems">
          {problems.map(({ field, problem }) => (
            <li key={`${field}\u0000${problem}`}>
              <strong>
                <VisibleText text={field} />
              </strong>
              : <VisibleText text={problem} />
            </li>
          ))}
        </ul>
      ) : null}
      {check && problems.length === 0 && check.summary ? (
        <div className="edit-summary" data-testid="edit-summary">
          <p>Approve runs the edited call once, and the agent is told:</p>
          <ul>
            {check.summary.changes.map((change) => (
              <li key={change}>
                <VisibleText text={change} />
              </li>
            ))}
            {(check.summary.rejectedHunks ?? []).map((hunk) => (
              <li key={hunk.number}>left out {hunk.description}</li>
            ))}
          </ul>
          {check.policy ? (
            <p className="hint" data-testid="edit-policy">
              Policy for the edited call: {check.policy.decision} (<VisibleText text={check.policy.rule} />)
            </p>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
