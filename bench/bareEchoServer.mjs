// A bare MCP SDK server with one echo tool over Streamable HTTP: the baseline the gate is compared with.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const sessions = new Map();

function newSession() {
  const server = new McpServer({ name: 'bare-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'echo', inputSchema: { text: z.string() }, outputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text: JSON.stringify({ text }) }], structuredContent: { text } }),
  );
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  return { server, transport };
}

const http = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
  const id = req.headers['mcp-session-id'];
  if (id && sessions.has(id)) return sessions.get(id).handleRequest(req, res, body);
  const { server, transport } = newSession();
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
});
http.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${http.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
