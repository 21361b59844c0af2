import { agentLabel } from '../../../shared/agentName';
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
          <span className="agent-client" data-testid="agent-client" title={`${agentLabel(agent)}, as its MCP client declared it`}>
            <VisibleText text={`${agent.client} ${agent.version}`} />
            {/* The client the session really is, when it forwarded another's name: always shown, set apart. */}
            {agent.via ? (
              <span className="note" data-testid="agent-via">
                {' via '}
                <VisibleText text={`${agent.via.client} ${agent.via.version}`} />
              </span>
            ) : null}
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
