import { AGENT_NAME_MAX_CHARS, AGENT_VERSION_MAX_CHARS, agentLabel, cleanAgentText } from '../../shared/agentName';
import type { AgentInfo } from '../../shared/call';

/** How many agent sessions are remembered; past it, the one heard from least recently is forgotten. */
const REMEMBERED_SESSIONS = 1024;
/** A name and version as a client declared them (in `initialize`, or forwarded in `_meta`). */
export interface DeclaredClient {
  name: string;
  version: string;
}

/**
 * An agent's declared identity, as the console, the audit and notifications show it: each name and
 * version cleaned to one line of bounded length (cleanAgentText). When the session's client forwarded
 * another's name, that name leads and the session's own client follows as `via`, each cut on its own,
 * so a long forwarded name can never push the session's own out of sight.
 */
export function boundedAgent(session: DeclaredClient, sessionStartedAt: string, forwarded?: DeclaredClient): AgentInfo {
  const own = { client: cleanAgentText(session.name, AGENT_NAME_MAX_CHARS), version: cleanAgentText(session.version, AGENT_VERSION_MAX_CHARS) };
  if (!forwarded) return { ...own, sessionStartedAt };
  return {
    client: cleanAgentText(forwarded.name, AGENT_NAME_MAX_CHARS),
    version: cleanAgentText(forwarded.version, AGENT_VERSION_MAX_CHARS),
    via: own,
    sessionStartedAt,
  };
}

/** How the console names an agent session: `claude-code 1.2.3, session since 2026-…`. */
export function describeAgent(agent: AgentInfo): string {
  return `${agentLabel(agent)}, session since ${agent.sessionStartedAt}`;
}

/**
 * Who each MCP session is, as its client declared in `initialize`: filled as sessions make calls,
 * read by the Permissions view to name the session a grant holds for.
 */
export class AgentDirectory {
  private readonly agents = new Map<string, AgentInfo>();

  /** Remembers (or refreshes) who a session is. */
  note(agentSession: string, agent: AgentInfo): void {
    this.agents.delete(agentSession);
    this.agents.set(agentSession, agent);
    if (this.agents.size > REMEMBERED_SESSIONS) {
      const oldest = this.agents.keys().next().value;
      if (oldest !== undefined) this.agents.delete(oldest);
    }
  }

  /** Who a session is, when it made a call since the gate started. */
  get(agentSession: string): AgentInfo | undefined {
    return this.agents.get(agentSession);
  }

  /** A session's name in words, for the Permissions view. */
  name(agentSession: string): string | undefined {
    const agent = this.agents.get(agentSession);
    return agent ? describeAgent(agent) : undefined;
  }
}
