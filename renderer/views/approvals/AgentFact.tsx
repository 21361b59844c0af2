import type { AgentInfo } from '../../../shared/call';
import { formatClock } from '../../format/time';
import { VisibleText } from '../common/VisibleText';

/** How many characters of a session id the card shows (the whole id is in the tooltip). */
const SHORT_SESSION = 8;

/**
 * The agent session a prompt came from: the client and version it declared at `initialize` and when
 * the session began. Its group's header holds "Approve all" and "Deny all from this agent".
 */
export function AgentFact({ agentSession, agent }: { agentSession: string; agent?: AgentInfo }) {
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
      </dd>
    </>
  );
}
