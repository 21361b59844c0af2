import { useId, useState } from 'react';
import type { ApprovalDecision, ApprovalRequest } from '../../../shared/approval';
import { prettyJson } from '../../format/json';
import { describe } from '../../store/consoleSync';
import { useConsoleSync } from '../consoleContext';
import { TierBadge } from '../common/TierBadge';
import { VisibleText } from '../common/VisibleText';
import { AgentFact } from './AgentFact';
import { Countdown } from './Countdown';
import { PreviewPanel } from './PreviewPanel';
import { SecretsNotice } from './SecretsNotice';

/**
 * One prompt: what would run, what it would change, and the person's Approve / Deny.
 * `promptsFromAgent` is how many prompts its agent session has waiting (for "Deny all from this agent").
 */
export function ApprovalCard({ request, promptsFromAgent }: { request: ApprovalRequest; promptsFromAgent?: number }) {
  const sync = useConsoleSync();
  const titleId = useId();
  const reasonId = useId();
  // A reason typed before a reload comes back: it is kept per prompt until the prompt resolves.
  const [reason, setReason] = useState(() => sync.drafts.get(request.approvalId));
  const [inFlight, setInFlight] = useState(false);
  const [problem, setProblem] = useState<string>();

  async function decide(decision: ApprovalDecision): Promise<void> {
    // The agent reads the reason; a bare "no" teaches it nothing, so Deny asks for one.
    if (decision === 'deny' && reason.trim() === '') {
      setProblem('Give a reason to deny: the agent is shown it.');
      return;
    }
    setProblem(undefined);
    setInFlight(true);
    try {
      await sync.decideApproval(request.approvalId, decision, reason);
    } catch (error) {
      setProblem(describe(error));
    } finally {
      // On success the card unmounts; setting state on it then is harmless in React 18+.
      setInFlight(false);
    }
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
        <Countdown expiresAt={request.expiresAt} />
      </header>
      <SecretsNotice secrets={request.secrets} />
      <dl className="approval-facts">
        <dt>Rule</dt>
        <dd data-testid="approval-rule">
          <VisibleText text={request.rule} />
        </dd>
        <dt>Call</dt>
        <dd>
          <code>{request.callId}</code>
        </dd>
        {request.agentSession ? <AgentFact agentSession={request.agentSession} waiting={promptsFromAgent ?? 1} reason={reason} /> : null}
      </dl>
      <section aria-label="Arguments">
        <h4>Arguments</h4>
        <pre className="approval-arguments" data-testid="approval-arguments">
          <VisibleText text={prettyJson(request.arguments)} />
        </pre>
      </section>
      <PreviewPanel preview={request.preview} />
      <form className="decision" onSubmit={(event) => event.preventDefault()}>
        <label className="reason-label" htmlFor={reasonId}>
          Reason
        </label>
        <textarea
          id={reasonId}
          className="reason"
          value={reason}
          maxLength={2000}
          rows={2}
          placeholder="Why (required to deny; shown to the agent)"
          onChange={(event) => {
            setReason(event.target.value);
            sync.drafts.set(request.approvalId, event.target.value);
          }}
        />
        {problem ? (
          <p className="decision-problem" role="alert" data-testid="decision-problem">
            {problem}
          </p>
        ) : null}
        <div className="decision-buttons">
          <button type="button" className="approve" disabled={inFlight} onClick={() => void decide('approve')}>
            Approve
          </button>
          <button type="button" className="deny" disabled={inFlight} onClick={() => void decide('deny')}>
            Deny
          </button>
        </div>
      </form>
    </article>
  );
}
