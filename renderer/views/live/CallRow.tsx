import { memo } from 'react';
import type { CallSnapshot } from '../../../shared/call';
import { formatDuration } from '../../format/time';
import { ExpandableJson } from '../common/ExpandableJson';
import { TierBadge } from '../common/TierBadge';

/** The outcome cell: the data, the error as code + message, or nothing yet. */
function CallOutcome({ call }: { call: CallSnapshot }) {
  if (call.error) {
    return (
      <span className="call-error">
        <code className="error-code">{call.error.code}</code> {call.error.message}
      </span>
    );
  }
  if (call.status !== 'completed') return null;
  return (
    <>
      <ExpandableJson value={call.data} label="result" />
      {call.truncated ? <span className="note"> (output cut)</span> : null}
    </>
  );
}

/** One call in the Live table. */
export const CallRow = memo(function CallRow({ call }: { call: CallSnapshot }) {
  return (
    <tr data-testid="call-row" data-call-id={call.callId} data-status={call.status} data-tool={call.tool}>
      <td className="call-tool">
        <span className="tool-name">{call.tool}</span>
        {call.tier ? <TierBadge tier={call.tier} /> : null}
      </td>
      <td className="call-arguments">
        <ExpandableJson value={call.arguments} label="arguments" />
      </td>
      <td>
        <span className={`status status-${call.status}`}>{call.status}</span>
      </td>
      <td className="call-step">{call.step}</td>
      <td className="numeric">{formatDuration(call.durationMs)}</td>
      <td className="call-outcome">
        <CallOutcome call={call} />
      </td>
    </tr>
  );
});
