// A bare MCP SDK server with one echo tool over Streamable HTTP: the baseline the gate is compared with.
// With --child, the echo is answered by a child process over Node's IPC instead of in the server (what
// taking the tool out of the server's process costs alone, without a sandbox, policy or log).
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const sessions = new Map();

/** The echo: in this process, or a round trip to the child. */
const echo = process.argv.includes('--child') ? childEcho() : async (text) => text;

function childEcho() {
  const child = fork(new URL('./fixtures/ipcEcho.mjs', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map();
  let next = 0;
  child.on('message', (message) => {
    const resolve = waiting.get(message.id);
    waiting.delete(message.id);
    resolve?.(message.text);
  });
  return (text) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      child.send({ id, text });
    });
}

function newSession() {
  const server = new McpServer({ name: 'bare-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'echo', inputSchema: { text: z.string() }, outputSchema: { text: z.string() } },
    async ({ text }) => {
      const echoed = await echo(text);
      return { content: [{ type: 'text', text: JSON.stringify({ text: echoed }) }], structuredContent: { text: echoed } };
    },
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
