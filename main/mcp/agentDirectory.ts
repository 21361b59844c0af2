import type { AgentInfo } from '../../shared/call';

/** How many agent sessions are remembered; past it, the one heard from least recently is forgotten. */
const REMEMBERED_SESSIONS = 1024;
/** Longest client name and version kept (a client chooses them freely). */
const MAX_CLIENT_CHARS = 200;
const MAX_VERSION_CHARS = 100;

/** An agent's declared identity, cut to bounds the console and the audit can show. */
export function boundedAgent(client: string, version: string, sessionStartedAt: string): AgentInfo {
  return { client: client.slice(0, MAX_CLIENT_CHARS), version: version.slice(0, MAX_VERSION_CHARS), sessionStartedAt };
}

/** How the console names an agent session: `claude-code 1.2.3, session since 2026-…`. */
export function describeAgent(agent: AgentInfo): string {
  return `${agent.client} ${agent.version}, session since ${agent.sessionStartedAt}`;
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
