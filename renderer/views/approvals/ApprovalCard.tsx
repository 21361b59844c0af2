import { useId, useState } from 'react';
import type { ApprovalRequest } from '../../../shared/approval';
import type { ApprovalScope } from '../../../shared/permissions';
import { prettyJson } from '../../format/json';
import { useConsoleSync } from '../consoleContext';
import { TierBadge } from '../common/TierBadge';
import { VisibleText } from '../common/VisibleText';
import { AgentFact } from './AgentFact';
import { DecisionBar, type OpenMenu } from './decide/DecisionBar';
import { Countdown } from './Countdown';
import { PreviewPanel } from './PreviewPanel';
import { SecretsNotice } from './SecretsNotice';
import { CallEditPanel } from './edit/CallEditPanel';
import { useCallEdit } from './edit/useCallEdit';

/**
 * One prompt: what would run, what it would change, and the person's answer: once, for a while, always, or deny.
 */
export function ApprovalCard({ request }: { request: ApprovalRequest }) {
  const sync = useConsoleSync();
  const titleId = useId();
  const reasonId = useId();
  // A reason typed before a reload comes back: it is kept per prompt until the prompt resolves.
  const [reason, setReason] = useState(() => sync.drafts.get(request.approvalId));
  const [menu, setMenu] = useState<OpenMenu>();
  const [scope, setScope] = useState<ApprovalScope>();
  const editing = useCallEdit(request);

  function changeReason(next: string): void {
    setReason(next);
    sync.drafts.set(request.approvalId, next);
  }

  return (
    <article
      className={`approval-card tier-edge-${request.tier.toLowerCase()}`}
      data-testid="approval-card"
      data-approval-id={request.approvalId}
      data-tool={request.tool}
      aria-labelledby={titleId}
    >
      <header className="approval-head">
        <h3 id={titleId}>
          <VisibleText text={request.tool} />
        </h3>
        <span className="tool-version">v{request.toolVersion}</span>
        <TierBadge tier={request.tier} />
        {/* In the header, not among the facts: a line more would push Approve below a 900 px window. */}
        {request.undoable ? (
          <span className={`approval-undo${request.undoable.startsWith('not') ? ' approval-undo-not' : ''}`} data-testid="approval-undoable" title={request.undoable}>
            {request.undoable}
          </span>
        ) : null}
        <Countdown expiresAt={request.expiresAt} />
      </header>
      <SecretsNotice secrets={request.secrets} warning={request.secretsWarning} />
      <dl className="approval-facts">
        <dt>Rule</dt>
        <dd data-testid="approval-rule">
          <VisibleText text={request.rule} />
        </dd>
        <dt>Call</dt>
        <dd>
          <code>{request.callId}</code>
        </dd>
        {request.agentSession ? <AgentFact agentSession={request.agentSession} agent={request.agent} /> : null}
      </dl>
      <section aria-label="Arguments">
        <h4>Arguments</h4>
        <pre className="approval-arguments" data-testid="approval-arguments">
          <VisibleText text={prettyJson(request.arguments)} />
        </pre>
      </section>
      <PreviewPanel preview={request.preview} editing={editing.diff} />
      <CallEditPanel request={request} editing={editing} />
      <form className="decision" onSubmit={(event) => event.preventDefault()}>
        <label className="reason-label" htmlFor={reasonId}>
          Reason
        </label>
        <textarea
          id={reasonId}
          className="reason"
          data-key="reason"
          aria-keyshortcuts="R"
          value={reason}
          maxLength={2000}
          rows={2}
          placeholder="Why (optional; shown to the agent)"
          onChange={(event) => changeReason(event.target.value)}
        />
        <DecisionBar request={request} reason={reason} menu={menu} setMenu={setMenu} scope={scope} setScope={setScope} edit={editing} />
      </form>
    </article>
  );
}
