import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, CallToolResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { toolgateVersion } from '../state/paths';
import { LONG_CALL } from './gateClient';

/**
 * `toolgate mcp`: an MCP server on stdin/stdout that forwards tools/list and tools/call to the
 * running gate, for clients that launch a command. Progress from the gate is passed on.
 */
export async function runStdioBridge(upstream: Client): Promise<void> {
  const server = new Server({ name: 'toolgate', version: toolgateVersion() }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => upstream.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const progressToken = request.params._meta?.progressToken;
    return upstream.request({ method: 'tools/call', params: request.params }, CallToolResultSchema, {
      ...LONG_CALL,
      signal: extra.signal,
      onprogress: (progress) => {
        if (progressToken === undefined) return;
        void extra.sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken } }).catch(() => {});
      },
    });
  });
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(new StdioServerTransport());
  // The client ends a stdio session by closing our stdin (then waits for us to exit); the SDK's
  // transport does not notice the end of input, so close here instead of lingering until SIGTERM.
  process.stdin.once('end', () => void server.close());
  await closed;
  await upstream.close();
}
