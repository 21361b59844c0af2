import { memo } from 'react';
import { agentLabel } from '../../../shared/agentName';
import type { CallSnapshot } from '../../../shared/call';
import { revealInvisibles } from '../../format/invisibles';
import { formatClock } from '../../format/time';
import { ExpandableJson } from '../common/ExpandableJson';
import { ExpandableText } from '../common/ExpandableText';
import { FindingList } from '../common/FindingList';
import { TierBadge } from '../common/TierBadge';
import { VisibleText } from '../common/VisibleText';
import { useConsoleSync } from '../consoleContext';
import { RanCell, WaitedCell } from './CallTimes';

/** The Live table's column headings, in order (a terminal row spans them all). */
export const LIVE_COLUMNS = ['Tool', 'Agent', 'Arguments', 'Status', 'Step', 'Waited', 'Ran', 'Result or error', 'Links'] as const;
/** Columns whose values are numbers, aligned right. */
export const NUMERIC_COLUMNS = new Set<string>(['Waited', 'Ran']);

/** Whether Live offers to undo a call: it ended and its record says it changed something in the workspace. */
export function offersUndo(call: CallSnapshot): boolean {
  return (call.changedPaths ?? 0) > 0 && (call.status === 'completed' || call.status === 'failed');
}

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
      {call.findings ? <FindingList findings={call.findings} where="in the result (passed to the agent unchanged)" testId="result-findings" /> : null}
    </>
  );
}

/** Who made the call: the MCP client and version its session declared, or where it came from. */
function CallAgent({ call }: { call: CallSnapshot }) {
  if (!call.agent) return <span className="note">{call.agentSession ? `session ${call.agentSession.slice(0, 8)}` : call.source}</span>;
  const session = call.agentSession ? `agent session ${call.agentSession}, ` : '';
  const label = agentLabel(call.agent);
  return (
    <span className="call-agent" data-testid="call-agent" title={`${revealInvisibles(label)}: ${session}started ${call.agent.sessionStartedAt}`}>
      <span className="agent-name">
        <VisibleText text={label} />
      </span>
      <span className="note"> since {formatClock(call.agent.sessionStartedAt)}</span>
    </span>
  );
}

/** Where else the call can be seen (its prompt while it waits, its records in the audit), and its Undo once it changed files. */
function CallLinks({ call, undoOpen, onToggleUndo }: { call: CallSnapshot; undoOpen: boolean; onToggleUndo: ((callId: string) => void) | undefined }) {
  const sync = useConsoleSync();
  const approvalId = call.status === 'awaiting-approval' ? call.approvalId : undefined;
  return (
    <td className="call-links">
      {approvalId ? (
        <button type="button" className="link-button" data-testid="open-prompt" onClick={() => sync.openPrompt(approvalId)}>
          Open prompt
        </button>
      ) : null}
      <button type="button" className="link-button" data-testid="open-audit-trail" onClick={() => void sync.showAuditTrail(call.callId)}>
        Audit trail
      </button>
      {onToggleUndo && offersUndo(call) ? (
        <button type="button" className="link-button" data-testid="open-undo" aria-expanded={undoOpen} onClick={() => onToggleUndo(call.callId)}>
          {undoOpen ? 'Hide undo' : 'Undo…'}
        </button>
      ) : null}
    </td>
  );
}

/** One call in the Live table. */
export const CallRow = memo(function CallRow({ call, undoOpen = false, onToggleUndo }: { call: CallSnapshot; undoOpen?: boolean; onToggleUndo?: (callId: string) => void }) {
  return (
    <tr
      data-testid="call-row"
      data-call-id={call.callId}
      data-status={call.status}
      data-tool={call.tool}
      data-before-restart={call.beforeRestart ? 'true' : undefined}
      className={call.beforeRestart ? 'before-restart' : undefined}
    >
      <td className="call-tool">
        <span className="tool-name" title={revealInvisibles(call.tool)}>
          <VisibleText text={call.tool} />
        </span>
        {call.tier ? <TierBadge tier={call.tier} /> : null}
      </td>
      <td className="call-agent-cell">
        <CallAgent call={call} />
      </td>
      <td className="call-arguments">
        <CallArguments value={call.arguments} />
      </td>
      <td>
        <span className={`status status-${call.status}`}>{call.status}</span>
        {call.beforeRestart ? (
          <span className="restart-mark" data-testid="before-restart" title="A call of the gate that ran before this one, read back from the audit">
            before restart
          </span>
        ) : null}
      </td>
      <td className="call-step">
        <span className="step-name">{call.step}</span>
        {call.decidedBy ? (
          <span className="decided-by" data-testid="decided-by" data-by={call.decidedBy.by}>
            {' '}
            · {call.decidedBy.by}: <VisibleText text={call.decidedBy.detail} />
          </span>
        ) : null}
      </td>
      <WaitedCell call={call} />
      <RanCell call={call} />
      <td className="call-outcome">
        <CallOutcome call={call} />
      </td>
      <CallLinks call={call} undoOpen={undoOpen} onToggleUndo={onToggleUndo} />
    </tr>
  );
});
