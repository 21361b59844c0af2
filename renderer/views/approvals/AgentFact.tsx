/** How many characters of a session id the card shows (the whole id is in the tooltip). */
const SHORT_SESSION = 8;

/** The agent session a prompt came from; its group's header holds "Approve all" and "Deny all from this agent". */
export function AgentFact({ agentSession }: { agentSession: string }) {
  return (
    <>
      <dt>Agent</dt>
      <dd className="agent-fact" data-testid="approval-agent" data-agent-session={agentSession}>
        <code title={agentSession}>{agentSession.slice(0, SHORT_SESSION)}</code>
      </dd>
    </>
  );
}
