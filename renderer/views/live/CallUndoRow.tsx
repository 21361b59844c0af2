import type { CallSnapshot } from '../../../shared/call';
import { countOf } from '../../../shared/plural';
import { UndoPanel } from '../common/UndoPanel';
import { LIVE_COLUMNS } from './CallRow';

/** The row under a call in Live once the person opened its Undo: the same panel as the audit detail's. */
export function CallUndoRow({ call }: { call: CallSnapshot }) {
  return (
    <tr className="call-undo-row" data-testid="call-undo-row" data-call-id={call.callId}>
      <td colSpan={LIVE_COLUMNS.length}>
        <p className="note">
          {call.tool} changed {countOf(call.changedPaths ?? 0, 'path')} in the workspace.
        </p>
        <UndoPanel callId={call.callId} />
      </td>
    </tr>
  );
}
