import { useId, useState } from 'react';
import { isDeclaredAgentSession } from '../../../../shared/agentName';
import type { ApprovalRequest } from '../../../../shared/approval';
import type { ApprovalScope, GrantDuration, RuleFile } from '../../../../shared/permissions';
import { prettyJson } from '../../../format/json';
import { describe } from '../../../store/consoleSync';
import { useConsoleSync } from '../../consoleContext';
import { DenyOptions } from './DenyOptions';
import { RuleEditor } from './RuleEditor';
import type { CallEditing } from '../edit/useCallEdit';
import { ProblemNote } from '../../common/ProblemNote';
import { ApproveButton } from '../ApproveButton';

const DURATIONS: ReadonlyArray<{ duration: GrantDuration; label: string }> = [
  { duration: '15m', label: 'Allow for 15 min' },
  { duration: '1h', label: 'Allow for 1 hour' },
  { duration: 'gate', label: 'Allow until the gate stops' },
];
const FILES: ReadonlyArray<{ file: RuleFile; label: string }> = [
  { file: 'user', label: 'Always allow in the user policy' },
  { file: 'project', label: 'Always allow in the project policy' },
];

/** Why a sessionless (MCP 2026-07-28) agent's call offers no session grant: the gate refuses one (scopedApproval). */
const SESSIONLESS_NOTE = 'this agent has no session (MCP 2026-07-28): it is known only by the name it declares, which any agent could declare';

/** Which menu of lasting choices is open. */
export type OpenMenu = 'timed' | 'always' | undefined;

/**
 * A prompt's answers: Approve (this call only), the lasting ones (this agent session, a while,
 * always), each opening the rule it would save; and Deny, with the reason typed, a preset reason, or words for the agent.
 */
export function DecisionBar({
  request,
  reason,
  menu,
  setMenu,
  scope,
  setScope,
  edit,
}: {
  request: ApprovalRequest;
  reason: string;
  menu: OpenMenu;
  setMenu: (menu: OpenMenu) => void;
  scope: ApprovalScope | undefined;
  setScope: (scope: ApprovalScope | undefined) => void;
  /** The person's edit of the call: Approve sends it, and is disabled while it is invalid; an edited call is approved once only. */
  edit?: Pick<CallEditing, 'edit' | 'blockedBy' | 'draft' | 'setDraft'>;
}) {
  const edited = edit?.edit !== undefined || edit?.blockedBy !== undefined;
  const sessionless = isDeclaredAgentSession(request.agentSession);
  const sync = useConsoleSync();
  const noteId = useId();
  const [inFlight, setInFlight] = useState(false);
  const [problem, setProblem] = useState<string>();

  async function approveOnce(): Promise<void> {
    setProblem(undefined);
    setInFlight(true);
    try {
      await sync.decideApproval(request.approvalId, 'approve', reason, edit?.edit ? { edit: edit.edit } : {});
    } catch (error) {
      setProblem(describe(error));
    } finally {
      setInFlight(false);
    }
  }

  function choose(next: ApprovalScope): void {
    setMenu(undefined);
    setScope(next);
  }

  return (
    <div className="decision-bar">
      <p className="decision-note" id={noteId}>
        {edited ? (
          <>
            <strong>Approve</strong> runs your edited call once. An edited call is never approved for longer: undo the edits for the lasting choices.
            {edit?.blockedBy ? <span data-testid="approve-blocked"> Approve is disabled: {edit.blockedBy}</span> : null}
          </>
        ) : (
          <>
            <strong>Approve</strong> runs this call once. The other choices last, and first show the rule they would save.
          </>
        )}
      </p>
      <ProblemNote problem={problem} testId="decision-problem" />
      <div className="decision-buttons" role="group" aria-label="Approve" aria-describedby={noteId}>
        <ApproveButton
          holdKey={`approve:${request.approvalId}`}
          className="approve"
          data-key="approve"
          aria-keyshortcuts="A"
          disabled={inFlight || edit?.blockedBy !== undefined}
          onClick={() => void approveOnce()}
        >
          Approve
        </ApproveButton>
        <button
          type="button"
          data-key="session"
          aria-keyshortcuts="S"
          disabled={!request.agentSession || sessionless || edited}
          title={!request.agentSession ? 'this call came with no agent session' : sessionless ? SESSIONLESS_NOTE : undefined}
          aria-pressed={scope?.kind === 'session'}
          onClick={() => choose({ kind: 'session' })}
        >
          Approve for this session
        </button>
        <button type="button" data-key="timed" aria-keyshortcuts="T" aria-expanded={menu === 'timed'} disabled={edited} onClick={() => setMenu(menu === 'timed' ? undefined : 'timed')}>
          Allow for…
        </button>
        <button type="button" data-key="always" aria-keyshortcuts="Shift+A" aria-expanded={menu === 'always'} disabled={edited} onClick={() => setMenu(menu === 'always' ? undefined : 'always')}>
          Always allow…
        </button>
        {request.editable?.arguments && edit ? <EditArgumentsButton request={request} edit={edit} /> : null}
      </div>
      {menu === 'timed' ? (
        <div className="decision-menu" role="group" aria-label="Allow for how long">
          {DURATIONS.map(({ duration, label }) => (
            <button key={duration} type="button" onClick={() => choose({ kind: 'timed', duration })}>
              {label}
            </button>
          ))}
        </div>
      ) : null}
      {menu === 'always' ? (
        <div className="decision-menu" role="group" aria-label="Always allow in which policy file">
          {FILES.map(({ file, label }) => (
            <button key={file} type="button" onClick={() => choose({ kind: 'always', file })}>
              {label}
            </button>
          ))}
        </div>
      ) : null}
      {scope && !edited ? <RuleEditor key={JSON.stringify(scope)} request={request} scope={scope} reason={reason} onCancel={() => setScope(undefined)} /> : null}
      <DenyOptions request={request} reason={reason} />
    </div>
  );
}

/** Opens (or closes) the JSON editor of the call's arguments; not while the file's content or hunks are being edited. */
function EditArgumentsButton({ request, edit }: { request: ApprovalRequest; edit: Pick<CallEditing, 'draft' | 'setDraft'> }) {
  const { draft, setDraft } = edit;
  const open = draft.argumentsText !== undefined;
  return (
    <button
      type="button"
      data-key="edit"
      aria-expanded={open}
      disabled={draft.content !== undefined || draft.rejectedHunks.length > 0}
      onClick={() => setDraft({ ...draft, argumentsText: open ? undefined : prettyJson(request.arguments) })}
    >
      {open ? 'Close the arguments editor' : 'Edit arguments'}
    </button>
  );
}
