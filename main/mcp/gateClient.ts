import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { toolgateVersion } from '../state/paths';
import { readGateAddress, readToken } from '../state/stateFolder';

/** An MCP client connected to the gate running for this state folder. */
export async function connectToRunningGate(home: string, clientName: string): Promise<Client> {
  const address = readGateAddress(home);
  const token = readToken(home);
  const client = new Client({ name: clientName, version: toolgateVersion() });
  const transport = new StreamableHTTPClientTransport(new URL(address.mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** Request options for a call that may wait on a person: the gate's progress keeps it alive. */
export const LONG_CALL = { timeout: 60_000, resetTimeoutOnProgress: true, maxTotalTimeout: 24 * 3600_000 } as const;
