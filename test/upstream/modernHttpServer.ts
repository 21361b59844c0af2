/**
 * Upstream servers reached over Streamable HTTP on loopback, for the specs of the gate's two MCP
 * eras towards its upstreams: one built on the v2 SDK's createMcpHandler (2026-07-28 only, or with
 * a stateless 2025 door beside it), and a raw one that claims 2026-07-28 and then misbehaves.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { abortOnClientGone, sendWebResponse, toWebRequest } from '../../main/mcp/webExchange';
// @ts-expect-error: a plain .mjs fixture, shared with the stdio specs (which run it as a process).
import { toolServer } from '../fixtures/modernUpstreamServer.mjs';

/** A server on loopback, the JSON-RPC methods it was sent (in order), and how to stop it. */
export interface LoopbackServer {
  url: string;
  methods: string[];
  close(): Promise<void>;
}

async function listen(http: Server, methods: string[], port = 0): Promise<LoopbackServer> {
  await new Promise<void>((done) => http.listen(port, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`,
    methods,
    close: async () => {
      http.closeAllConnections();
      await new Promise((done) => http.close(done));
    },
  };
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

/**
 * The fixture's tools (echo, add, progress, grow) served by the v2 SDK: `legacy: 'reject'` speaks
 * only 2026-07-28 (a 2025 initialize is refused), 'stateless' answers a 2025 client too. `grow`
 * announces the changed list on every open subscriptions/listen stream. `port` 0 picks a free one.
 */
export async function startModernHttpServer(legacy: 'reject' | 'stateless', port = 0): Promise<LoopbackServer> {
  const state = { grown: false };
  const methods: string[] = [];
  const handler = createMcpHandler(() => toolServer(state, () => handler.notify.toolsChanged()), { legacy });
  const http = createServer(async (request, response) => {
    const body = request.method === 'POST' ? await readBody(request) : undefined;
    if (body && typeof body === 'object' && 'method' in body) methods.push(String(body.method));
    const web = await handler.fetch(toWebRequest(request, abortOnClientGone(response)), body === undefined ? {} : { parsedBody: body });
    await sendWebResponse(web, response);
  });
  const server = await listen(http, methods, port);
  return {
    ...server,
    close: async () => {
      await handler.close().catch(() => {});
      await server.close();
    },
  };
}

/**
 * A raw server that answers server/discover as 2026-07-28 and then sends a tools/list answer
 * without the envelope a 2026-07-28 result has (no resultType).
 */
export async function startEnvelopelessHttpServer(): Promise<LoopbackServer> {
  const methods: string[] = [];
  const http = createServer(async (request, response) => {
    const body = (await readBody(request)) as { id?: number | string; method?: string } | undefined;
    if (body?.method) methods.push(body.method);
    const result =
      body?.method === 'server/discover'
        ? { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} } }
        : { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body?.id ?? null, result }));
  });
  return listen(http, methods);
}

/** A loopback server that records each tools/call's request headers. */
export interface HeaderRecordingServer extends LoopbackServer {
  /** The headers of each tools/call it was sent, in order. */
  calls: { tool: string; headers: IncomingMessage['headers'] }[];
}

/**
 * A raw 2026-07-28 server listing `region` (its `region` argument marked `x-mcp-header: Region`,
 * `note` unmarked) and `spaced` (marked with a header name holding a space, which SEP-2243 forbids).
 */
export async function startHeaderParamHttpServer(): Promise<HeaderRecordingServer> {
  const methods: string[] = [];
  const calls: HeaderRecordingServer['calls'] = [];
  const tools = [
    { name: 'region', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, note: { type: 'string' } } } },
    { name: 'spaced', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'My Region' } } } },
  ];
  const http = createServer(async (request, response) => {
    const body = (await readBody(request)) as { id?: number | string; method?: string; params?: { name?: string } } | undefined;
    if (body?.method) methods.push(body.method);
    if (body?.method === 'tools/call') calls.push({ tool: String(body.params?.name), headers: request.headers });
    const results: Record<string, unknown> = {
      'server/discover': { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, serverInfo: { name: 'headers', version: '1' } },
      'tools/list': { resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools },
      'tools/call': { resultType: 'complete', content: [{ type: 'text', text: 'called' }] },
    };
    const result = results[body?.method ?? ''];
    if (body?.id === undefined) response.writeHead(202).end();
    else if (!result) response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found' } }));
    else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }));
  });
  return { ...(await listen(http, methods)), calls };
}
