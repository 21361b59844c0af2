/**
 * MCP sessions on the gate's endpoint: kept in least-recently-used order, never closed mid-request,
 * closed when idle, and ended by `toolgate call` and the stdio bridge when they exit. The endpoint
 * runs in this process (so the test can count its sessions) in front of a real gate; the CLI finds
 * it through gate.json like it finds `toolgate serve`.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createGate, type Gate } from '../../main/gate/createGate';
import { createGateMcpServer } from '../../main/mcp/gateMcpServer';
import { McpHttpEndpoint, type SessionLimits } from '../../main/mcp/mcpHttpEndpoint';
import { ensureHome, loadOrCreateToken, writeGateAddress } from '../../main/state/stateFolder';
import { connectStdioBridge, makeTempDirs, nextApproval, rawRequest, runCli, textOf, type TempDirs } from './helpers';
import { WAIT_MS, waitUntil } from '../fixtures/processes';

/** A real gate behind an McpHttpEndpoint this test can inspect, recorded in gate.json. */
interface EndpointGate {
  gate: Gate;
  endpoint: McpHttpEndpoint;
  dirs: TempDirs;
  port: number;
  mcpUrl: string;
  close(): Promise<void>;
}

const started: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  for (const item of started.splice(0).reverse()) await item.close();
});

async function startEndpointGate(limits: Partial<SessionLimits> = {}): Promise<EndpointGate> {
  const dirs = makeTempDirs();
  ensureHome(dirs.home);
  loadOrCreateToken(dirs.home);
  const gate = await createGate({ home: dirs.home, workspace: dirs.workspace, approvalTimeoutMs: WAIT_MS, poolSize: 1 });
  const endpoint = new McpHttpEndpoint(() => createGateMcpServer(gate.registry, gate.executor), () => {}, limits);
  const server: HttpServer = createServer((request, response) => void endpoint.handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const mcpUrl = `http://127.0.0.1:${port}/mcp`;
  writeGateAddress(dirs.home, { pid: process.pid, port, mcpUrl, consoleUrl: `http://127.0.0.1:${port}/`, workspace: gate.workspace });
  const running: EndpointGate = {
    gate,
    endpoint,
    dirs,
    port,
    mcpUrl,
    close: async () => {
      gate.approvals.close();
      await endpoint.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gate.close();
      dirs.remove();
    },
  };
  started.push(running);
  return running;
}

/** The official client over Streamable HTTP, with its transport (for terminateSession). */
async function connectHttp(mcpUrl: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'sessions-test', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl));
  await client.connect(transport);
  started.push({ close: () => client.close() });
  return { client, transport };
}

/** A session driven by raw POSTs: it has no GET stream, so between requests nothing of it is open. */
class RawSession {
  private nextId = 1;
  private constructor(
    private readonly port: number,
    readonly sessionId: string,
  ) {}

  static async open(port: number): Promise<RawSession> {
    const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-session', version: '0' } };
    const response = await post(port, undefined, { jsonrpc: '2.0', id: 0, method: 'initialize', params: initialize });
    expect(response.status).toBe(200);
    return new RawSession(port, response.headers['mcp-session-id'] as string);
  }

  /** Sends one request; resolves with the HTTP status and the JSON-RPC message (from the SSE body or plain JSON). */
  async request(method: string, params: unknown = {}): Promise<{ status: number; message: any }> {
    const response = await post(this.port, this.sessionId, { jsonrpc: '2.0', id: this.nextId++, method, params });
    const events = [...response.body.matchAll(/^data: (.*)$/gm)].map((match) => JSON.parse(match[1]!));
    const message = events.find((event) => 'id' in event) ?? JSON.parse(response.body);
    return { status: response.status, message };
  }
}

function post(port: number, sessionId: string | undefined, body: unknown) {
  return rawRequest({
    port,
    path: '/mcp',
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify(body),
  });
}

describe('MCP sessions on the endpoint', () => {
  it('a long-lived agent keeps working while 100 one-call sessions open and end', async () => {
    const gate = await startEndpointGate();
    const agent = await connectHttp(gate.mcpUrl);
    for (let i = 0; i < 100; i++) {
      const { client, transport } = await connectHttp(gate.mcpUrl);
      const result = await client.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
      expect(result.structuredContent).toEqual({ text: `call ${i}` });
      await transport.terminateSession();
      await client.close();
      if (i % 25 === 0) expect((await agent.client.callTool({ name: 'echo', arguments: { text: 'still here' } })).isError).toBe(false);
    }
    expect(gate.endpoint.sessionCount()).toBe(1);
    const result = await agent.client.callTool({ name: 'echo', arguments: { text: 'after 100' } });
    expect(result.structuredContent).toEqual({ text: 'after 100' });
  });

  it('past the cap, closes the least recently used session, not the oldest', async () => {
    const gate = await startEndpointGate({ maxSessions: 4 });
    const longLived = await RawSession.open(gate.port);
    const leftOpen: RawSession[] = [];
    for (let i = 0; i < 10; i++) {
      leftOpen.push(await RawSession.open(gate.port));
      // The oldest session, used between every new one, stays the most recently used.
      expect((await longLived.request('tools/list')).status).toBe(200);
    }
    expect(gate.endpoint.sessionCount()).toBe(4);
    expect((await longLived.request('tools/call', { name: 'echo', arguments: { text: 'kept' } })).message.result.structuredContent).toEqual({ text: 'kept' });
    const evicted = await leftOpen[0]!.request('tools/list');
    expect(evicted.status).toBe(404);
    expect(evicted.message.error.message).toMatch(/unknown MCP session/);
    expect((await leftOpen[9]!.request('tools/list')).status).toBe(200);
  });

  it('never closes a session while one of its requests is open', async () => {
    const gate = await startEndpointGate({ maxSessions: 2 });
    const waiting = await RawSession.open(gate.port);
    const prompt = nextApproval(gate.gate.backend);
    const call = waiting.request('tools/call', { name: 'write_file', arguments: { path: 'held.txt', content: 'held\n' } });
    const request = await prompt;
    // Many newer sessions come and go while the write waits for a person.
    for (let i = 0; i < 6; i++) await RawSession.open(gate.port);
    expect(gate.endpoint.sessionCount()).toBe(2);
    await gate.gate.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
    const answer = await call;
    expect(answer.status).toBe(200);
    expect(answer.message.result).toMatchObject({ isError: false, structuredContent: { path: 'held.txt', created: true } });
    expect((await waiting.request('tools/list')).status).toBe(200);
  });

  it('closes a session idle past the limit, but not one whose client is still connected', async () => {
    // The connected client holds no request open for a moment while it connects (between its
    // initialize and its GET stream): the limit is long beside that moment, however busy the machine.
    const gate = await startEndpointGate({ idleMs: 2_000, sweepMs: 50 });
    const idle = await RawSession.open(gate.port);
    const connected = await connectHttp(gate.mcpUrl);
    // (The idle one may already be gone on a slow machine: what counts is which one is left.)
    await waitUntil(() => gate.endpoint.sessionCount() === 1, 'the idle session to be closed');
    expect((await idle.request('tools/list')).status).toBe(404);
    // The SDK client holds its GET stream open: it is connected, so its session stays.
    const result = await connected.client.callTool({ name: 'echo', arguments: { text: 'awake' } });
    expect(textOf(result)).toContain('awake');
  });

  it('close() stops the sweep and can be called twice', async () => {
    const endpoint = new McpHttpEndpoint(() => {
      throw new Error('no session is opened here');
    }, () => {}, { sweepMs: 10 });
    await endpoint.close();
    await endpoint.close();
    expect(endpoint.sessionCount()).toBe(0);
  });
});

describe('clients that end their session when they exit', () => {
  it('`toolgate call` leaves no session behind', async () => {
    const gate = await startEndpointGate();
    for (const text of ['first', 'second']) {
      const run = await runCli(['call', 'echo', JSON.stringify({ text })], gate.dirs.home);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ text });
      expect(gate.endpoint.sessionCount()).toBe(0);
    }
    const failed = await runCli(['call', 'read_file', JSON.stringify({ path: '../outside' })], gate.dirs.home);
    expect(failed.code).toBe(1);
    expect(gate.endpoint.sessionCount()).toBe(0);
  });

  it('the stdio bridge ends its session when the client closes it', async () => {
    const gate = await startEndpointGate();
    const client = await connectStdioBridge(gate.dirs.home);
    started.push({ close: () => client.close() });
    expect((await client.callTool({ name: 'echo', arguments: { text: 'bridged' } })).structuredContent).toEqual({ text: 'bridged' });
    expect(gate.endpoint.sessionCount()).toBe(1);
    await client.close();
    await waitUntil(() => gate.endpoint.sessionCount() === 0, 'the bridge to end its session');
  });
});
