import { createHash } from 'node:crypto';
import { z } from 'zod';
import { DECLARED_AGENT_SESSION_PREFIX } from '../../shared/agentName';
import type { AgentInfo } from '../../shared/call';
import { boundedAgent, type AgentDirectory } from './agentDirectory';
import { forwardedClient } from './forwardedClient';

/** The envelope key under which a 2026-07-28 request carries its client's name and version. */
export const CLIENT_INFO_ENVELOPE_KEY = 'io.modelcontextprotocol/clientInfo';

// Any length: the body's bounds already held, and the name is cut for showing before it is keyed.
const ClientInfoSchema = z.object({ name: z.string(), version: z.string() });

/** Who a sessionless request says it is from, and the key its calls are grouped by. */
export interface DeclaredCaller {
  agent: AgentInfo;
  agentSession: string;
}

/**
 * Who a sessionless (2026-07-28) request is from: the client name and version its envelope declares
 * (and a name it forwards, shown ahead as `via` does for sessions), bounded as boundedAgent bounds
 * a session's. Undefined when the envelope names no client.
 *
 * The agent-session key is derived from that identity exactly as the console shows it, because
 * there is no session to key on: the revision dropped `initialize` and Mcp-Session-Id, and every
 * request stands alone. The name is self-declared, so the key groups honest agents (every call of
 * "claude-code 2.1.0" counts against one per-agent prompt quota) but binds no hostile one: a holder
 * of the MCP token can dodge the per-agent quota by declaring a new name per call (the gate-wide cap
 * on waiting prompts still holds), or fill another agent's quota by declaring its name (that agent's
 * prompts are then refused EQUOTA until the person answers some). It is fairness between cooperating
 * agents, not a boundary; the token is the boundary. For the same reason no session grant may hang
 * on such a key (isDeclaredAgentSession; scopedApproval refuses it).
 *
 * `sessionStartedAt` is when the gate first heard from this identity since it started (as long as
 * the directory remembers it), the nearest a sessionless agent has to a session's start.
 */
export function declaredCaller(envelope: Record<string, unknown> | undefined, forwardedMeta: unknown, agents?: AgentDirectory): DeclaredCaller | undefined {
  const client = ClientInfoSchema.safeParse(envelope?.[CLIENT_INFO_ENVELOPE_KEY]);
  if (!client.success) return undefined;
  const forwarded = forwardedClient(forwardedMeta);
  const shown = boundedAgent(client.data, '', forwarded);
  const identity = JSON.stringify([shown.client, shown.version, shown.via?.client ?? null, shown.via?.version ?? null]);
  const agentSession = `${DECLARED_AGENT_SESSION_PREFIX}${createHash('sha256').update(identity).digest('hex').slice(0, 32)}`;
  const firstHeard = agents?.get(agentSession)?.sessionStartedAt ?? new Date().toISOString();
  const agent = { ...shown, sessionStartedAt: firstHeard };
  agents?.note(agentSession, agent);
  return { agent, agentSession };
}
