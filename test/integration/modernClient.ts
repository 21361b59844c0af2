/**
 * The official v2 MCP client (`@modelcontextprotocol/client`) as a 2026-07-28 agent, for the specs
 * of the gate's stateless endpoint.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/**
 * A v2 client that negotiates the revision with `server/discover` as an agent would ('auto'). It
 * falls back to a 2025 session when the gate does not answer as 2026-07-28: callers check
 * `getProtocolEra()` when the era matters.
 */
export async function connectModernMcp(mcpUrl: string, token: string, name = 'modern-agent', version = '1.2.3'): Promise<Client> {
  const client = new Client({ name, version }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}
