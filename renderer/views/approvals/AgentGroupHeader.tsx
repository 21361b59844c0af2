import { useId } from 'react';
import { agentLabel } from '../../../shared/agentName';
import type { ApprovalRequest } from '../../../shared/approval';
import { formatClock } from '../../format/time';
import { describe } from '../../store/consoleSync';
import { useBridgeAction } from '../common/useBridgeAction';
import { VisibleText } from '../common/VisibleText';
import { useConsoleSync } from '../consoleContext';
import { approvableBatch, type AgentGroup } from './agentGroups';
import { useEditsInProgress } from './edit/editsInProgress';
import { ProblemNote } from '../common/ProblemNote';
import { ApproveButton } from './ApproveButton';
import { countOf } from '../../../shared/plural';

/** How many characters of a session id the header shows (the whole id is in the tooltip). */
const SHORT_SESSION = 8;

/**
 * The head of one agent's prompts: who is asking, how many wait and since when; "Approve all N",
 * enabled only once every one of them has been shown in full; and "Deny all from this agent".
 */
export function AgentGroupHeader({ group, shownInFull }: { group: AgentGroup; shownInFull: ReadonlySet<string> }) {
  const sync = useConsoleSync();
  const headingId = useId();
  const noteId = useId();
  const approving = useBridgeAction();
  const denying = useBridgeAction();
  const { agentSession, prompts } = group;
  const agent = prompts[0]?.agent;
  const editing = useEditsInProgress();
  const beingEdited = prompts.filter((request) => editing.has(request.approvalId)).length;
  // An edit not yet sent would be passed over: the agent's call as it came would run instead.
  const batch = beingEdited > 0 ? undefined : approvableBatch(group, shownInFull);
  const seen = prompts.filter((request) => shownInFull.has(request.approvalId)).length;

  // Exactly the prompts this button was drawn for, each answered by its own id and binding: one that
  // arrived since is not among them (and, unseen, has already disabled the button on screen).
  async function approveAll(requests: readonly ApprovalRequest[]): Promise<void> {
    const failed: string[] = [];
    for (const request of requests) {
      try {
        await sync.decideApproval(request.approvalId, 'approve', '', { bindingHash: request.bindingHash });
      } catch (error) {
        failed.push(`${request.tool} (${describe(error)})`);
      }
    }
    if (failed.length > 0) throw new Error(`${failed.length} of ${requests.length} not approved: ${failed.join('; ')}`);
  }

  return (
    <header className="agent-group" data-testid="agent-group" data-agent-session={agentSession ?? ''} aria-labelledby={headingId}>
      <h3 id={headingId} className="agent-group-title">
        {agentSession ? (
          <>
            {agent ? <VisibleText text={agentLabel(agent)} /> : 'Agent'} <code title={`agent session ${agentSession}`}>{agentSession.slice(0, SHORT_SESSION)}</code>
          </>
        ) : (
          'Calls with no agent session'
        )}
      </h3>
      <span className="note" data-testid="agent-waiting">
        {countOf(prompts.length, 'prompt')} since {formatClock(prompts[0]!.requestedAt)}
      </span>
      <span className="note" id={noteId} data-testid="agent-seen" title="Approve all waits until you have scrolled through each prompt of this agent, with nothing folded">
        {beingEdited > 0
          ? `${beingEdited === 1 ? '1 prompt is' : `${beingEdited} prompts are`} being edited: answer ${beingEdited === 1 ? 'it' : 'them'} on ${beingEdited === 1 ? 'its card' : 'their cards'}`
          : batch
            ? 'each seen in full'
            : `${seen} of ${prompts.length} seen in full`}
      </span>
      <ApproveButton
        holdKey={`agent:${agentSession ?? ''}`}
        className="approve approve-all"
        disabled={!batch || approving.inFlight}
        aria-describedby={noteId}
        onClick={() => batch && void approving.run(() => approveAll(batch))}
      >
        Approve all {prompts.length}
      </ApproveButton>
      {agentSession ? (
        <button type="button" className="deny deny-all" disabled={denying.inFlight} onClick={() => void denying.run(() => sync.denyAllFromAgent(agentSession, ''))}>
          Deny all from this agent
        </button>
      ) : null}
      <ProblemNote problem={approving.problem ?? denying.problem} testId="agent-group-problem" inline />
    </header>
  );
}
