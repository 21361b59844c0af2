import { useState } from 'react';
import type { AgentInfo } from '../../../shared/call';
import { formatClock } from '../../format/time';
import { describe } from '../../store/consoleSync';
import { VisibleText } from '../common/VisibleText';
import { useConsoleSync } from '../consoleContext';

/** How many characters of a session id the card shows (the whole id is in the tooltip). */
const SHORT_SESSION = 8;

/**
 * The agent session a prompt came from: the client and version it declared at `initialize` and when
 * the session began, how many prompts it has waiting, and "Deny all from this agent": one click
 * denies every one of them (with the reason typed on this card, if any) and leaves other agents'
 * prompts alone.
 */
export function AgentFact({ agentSession, agent, waiting, reason }: { agentSession: string; agent?: AgentInfo; waiting: number; reason: string }) {
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
        {agent ? (
          <span className="agent-client" data-testid="agent-client" title={`${agent.client} ${agent.version}, as its MCP client declared it`}>
            <VisibleText text={`${agent.client} ${agent.version}`} />
          </span>
        ) : null}
        <span className="note">
          session <code title={agentSession}>{agentSession.slice(0, SHORT_SESSION)}</code>
          {agent ? (
            <>
              {', since '}
              <time dateTime={agent.sessionStartedAt} data-testid="agent-since" title={agent.sessionStartedAt}>
                {formatClock(agent.sessionStartedAt)}
              </time>
            </>
          ) : null}
        </span>
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
