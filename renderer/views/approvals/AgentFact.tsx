import { useState } from 'react';
import { describe } from '../../store/consoleSync';
import { useConsoleSync } from '../consoleContext';

/** How many characters of a session id the card shows (the whole id is in the tooltip). */
const SHORT_SESSION = 8;

/**
 * The agent session a prompt came from, how many prompts it has waiting, and "Deny all from this
 * agent": one click denies every one of them (with the reason typed on this card, if any) and
 * leaves other agents' prompts alone.
 */
export function AgentFact({ agentSession, waiting, reason }: { agentSession: string; waiting: number; reason: string }) {
  const sync = useConsoleSync();
  const [inFlight, setInFlight] = useState(false);
  const [problem, setProblem] = useState<string>();

  async function denyAll(): Promise<void> {
    setProblem(undefined);
    setInFlight(true);
    try {
      await sync.denyAllFromAgent(agentSession, reason);
    } catch (error) {
      setProblem(describe(error));
    } finally {
      setInFlight(false);
    }
  }

  return (
    <>
      <dt>Agent</dt>
      <dd className="agent-fact" data-testid="approval-agent" data-agent-session={agentSession}>
        <code title={agentSession}>{agentSession.slice(0, SHORT_SESSION)}</code>
        <span className="note" data-testid="agent-waiting">
          {waiting === 1 ? '1 prompt waiting' : `${waiting} prompts waiting`}
        </span>
        <button type="button" className="deny deny-all" disabled={inFlight} onClick={() => void denyAll()}>
          Deny all from this agent
        </button>
        {problem ? (
          <span className="decision-problem" role="alert" data-testid="deny-all-problem">
            {problem}
          </span>
        ) : null}
      </dd>
    </>
  );
}
