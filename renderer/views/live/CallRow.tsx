import { memo } from 'react';
import type { CallSnapshot } from '../../../shared/call';
import { formatDuration } from '../../format/time';
import { ExpandableJson } from '../common/ExpandableJson';
import { ExpandableText } from '../common/ExpandableText';
import { TierBadge } from '../common/TierBadge';
import { VisibleText } from '../common/VisibleText';

/** How much of an error message a row shows before "Show all". */
export const ERROR_MESSAGE_CHARS = 300;

/**
 * The arguments cell. Arguments an agent sent as a string (refused at parse or lookup) are shown
 * as the text they are, marked, rather than as an escaped JSON string.
 */
function CallArguments({ value }: { value: unknown }) {
  if (typeof value !== 'string') return <ExpandableJson value={value} label="arguments" />;
  return (
    <>
      <span className="raw-text-mark" data-testid="raw-text-mark" title="Sent as a string, not as an object">
        raw text
      </span>
      <ExpandableText text={value} maxChars={120} label="arguments" code />
    </>
  );
}

/** The outcome cell: the data, the error as code + message, or nothing yet. */
function CallOutcome({ call }: { call: CallSnapshot }) {
  if (call.error) {
    return (
      <span className="call-error">
        <code className="error-code"><VisibleText text={call.error.code} /></code>{' '}
        <ExpandableText text={call.error.message} maxChars={ERROR_MESSAGE_CHARS} label="error message" />
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
        <span className="tool-name">
          <VisibleText text={call.tool} />
        </span>
        {call.tier ? <TierBadge tier={call.tier} /> : null}
      </td>
      <td className="call-arguments">
        <CallArguments value={call.arguments} />
      </td>
      <td>
        <span className={`status status-${call.status}`}>{call.status}</span>
      </td>
      <td className="call-step">
        {call.step}
        {call.decidedBy ? (
          <span className="decided-by" data-testid="decided-by" data-by={call.decidedBy.by}>
            {' '}
            · {call.decidedBy.by}: <VisibleText text={call.decidedBy.detail} />
          </span>
        ) : null}
      </td>
      <td className="numeric">{formatDuration(call.durationMs)}</td>
      <td className="call-outcome">
        <CallOutcome call={call} />
      </td>
    </tr>
  );
});
