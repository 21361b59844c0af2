import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { WAIT_MS } from '../fixtures/processes';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { Connections, eventually, firstText, fixtureConfig, scriptConfig } from './helpers';

/** Every byte this process has read through a system call (the kernel's count, /proc/self/io). */
function bytesRead(): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);
}

const home = makeTempFolder();
const connections = new Connections({ home, resolveSecret: async () => undefined });
const options = { timeoutMs: WAIT_MS, maxResultBytes: 1024 * 1024 };

afterEach(() => connections.closeAll());

describe('an upstream stdio server', () => {
  it('starts, lists its tools and answers calls', async () => {
    const connection = connections.make(fixtureConfig('normal'));
    await connection.start();
    expect(connection.tools().map((tool) => tool.name)).toEqual(['echo', 'add', 'probe']);
    expect(connection.state()).toMatchObject({ status: 'ready', tools: 3, refused: [] });
    expect(connection.state().detail).toMatch(/without a sandbox/);
    expect(firstText(await connection.call('add', { a: 2, b: 3 }, options))).toBe('5');
  });

  it('refuses a call to a tool it does not have', async () => {
    const connection = connections.make(fixtureConfig('normal'));
    await connection.start();
    const outcome = await connection.call('rm_rf', {}, options);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'ENOTFOUND' } });
  });

  it('fails a start that does not answer in time with ETIMEOUT naming the server and the timeout', async () => {
    const connection = connections.make(scriptConfig('silent', 'setInterval(() => {}, 1000)'), { limits: { startTimeoutMs: 500 } });
    const error = await connection.start().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GateError);
    expect(error).toMatchObject({ code: 'ETIMEOUT', message: expect.stringMatching(/silent.*500 ms/) });
    expect(connection.state().status).toBe('failed');
  });

  it('says what a server that exits at start printed on stderr', async () => {
    const connection = connections.make(scriptConfig('broken', 'console.error("missing config file /etc/broken.conf"); process.exit(2)'));
    await expect(connection.start()).rejects.toThrow(/broken could not start.*missing config file \/etc\/broken\.conf/);
  });

  it('refuses to start when a secret its env names is unknown, naming it', async () => {
    const connection = connections.make(fixtureConfig('normal', { env: { API_KEY: '$ENV.MISSING_KEY' } }));
    await expect(connection.start()).rejects.toThrow(/\$ENV\.MISSING_KEY is not defined/);
  });

  it('turns a reply that is not a CallToolResult into ERUNTIME, and ignores a line that is not JSON-RPC', async () => {
    const connection = connections.make(fixtureConfig('malformed'));
    await connection.start();
    const outcome = await connection.call('echo', {}, options);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'ERUNTIME', message: expect.stringMatching(/not a valid tools\/call result: .*content/s) } });
    expect(connection.state().status).toBe('ready');
  });

  it('times a call out with ETIMEOUT naming the timeout, passing progress on meanwhile', async () => {
    const connection = connections.make(fixtureConfig('never-answers'));
    await connection.start();
    const progress: unknown[] = [];
    // Long enough for the server to take the call and report on it first, however loaded the machine.
    const outcome = await connection.call('wait', {}, { ...options, timeoutMs: 2_000, onProgress: (update) => progress.push(update) });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'ETIMEOUT', message: expect.stringMatching(/2000 ms/) } });
    expect(progress).toEqual([{ progress: 1, total: 10, message: 'working' }]);
    // The server was told to stop (notifications/cancelled), as the message says.
    expect(JSON.parse(firstText(await connection.call('withdrawn', {}, options)))).toEqual([expect.stringMatching(/timed out/)]);
    expect(firstText(await connection.call('echo', { text: 'still here' }, options))).toBe('still here');
  });

  it('withdraws a call when its signal aborts', async () => {
    const connection = connections.make(fixtureConfig('never-answers'));
    await connection.start();
    const controller = new AbortController();
    // Withdrawn once the server is at work on it (its progress came), as an agent gives up on a call under way.
    const outcome = await connection.call('wait', {}, { ...options, signal: controller.signal, onProgress: () => controller.abort('the agent withdrew it') });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'EDENIED', message: expect.stringMatching(/cancelled/), details: { cancelled: true } } });
    // The server was told to stop, with the reason.
    expect(JSON.parse(firstText(await connection.call('withdrawn', {}, options)))).toEqual(['the agent withdrew it']);
  });

  it('reads an answer a server writes a few bytes at a time: characters cut between writes, a CRLF end, two messages in one write', async () => {
    // A 2025 server that drips its tools/call answer (a log line first) in pieces of 1 to 7 bytes.
    const script = `
      const line = (m) => JSON.stringify({ jsonrpc: '2.0', ...m });
      const drip = (text) => {
        const bytes = Buffer.from(text);
        let at = 0;
        const next = () => {
          if (at >= bytes.length) return;
          const size = Math.min(bytes.length - at, 1 + (at % 7));
          process.stdout.write(bytes.subarray(at, at + size));
          at += size;
          setTimeout(next, 1);
        };
        next();
      };
      require('node:readline').createInterface({ input: process.stdin }).on('line', (text) => {
        const m = JSON.parse(text);
        if (m.method === 'initialize') process.stdout.write(line({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {}, logging: {} }, serverInfo: { name: 'drip', version: '1' } } }) + '\\n');
        else if (m.method === 'tools/list') process.stdout.write(line({ id: m.id, result: { tools: [{ name: 'say', inputSchema: { type: 'object' } }] } }) + '\\n');
        else if (m.method === 'tools/call') {
          const log = line({ method: 'notifications/message', params: { level: 'info', data: 'saying it' } });
          drip(log + '\\n' + line({ id: m.id, result: { content: [{ type: 'text', text: m.params.arguments.text }] } }) + '\\r\\n');
        }
      });`;
    const connection = connections.make(scriptConfig('drip', script));
    await connection.start();
    const text = 'naïve — ✓ 漢字 🙂 done';
    expect(firstText(await connection.call('say', { text }, options))).toBe(text);
    expect(firstText(await connection.call('say', { text: 'and again' }, options))).toBe('and again');
  });

  it('fails a call the server answers with a broken error, an answer with neither result nor error, or an answer to no call, and goes on serving', async () => {
    // A 2025 server that answers each tools/call wrongly, by its arguments' "how".
    const script = `
      const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
      require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
        const m = JSON.parse(line);
        if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'odd', version: '1' } } });
        else if (m.method === 'tools/list') send({ id: m.id, result: { tools: [{ name: 'answer', inputSchema: { type: 'object' } }] } });
        else if (m.method === 'tools/call') {
          const how = m.params.arguments.how;
          if (how === 'error-text') send({ id: m.id, error: 'no' });
          else if (how === 'empty') send({ id: m.id });
          else if (how === 'other-id') { send({ id: 'toolgate-call-999999', result: { content: [] } }); send({ id: 4242, result: {} }); send({ id: m.id, result: { content: [{ type: 'text', text: 'mine' }] } }); }
          else send({ id: m.id, error: { code: -32000, message: 'refused by odd' } });
        }
      });`;
    const connection = connections.make(scriptConfig('odd', script));
    await connection.start();
    expect(await connection.call('answer', { how: 'error-text' }, options)).toMatchObject({ ok: false, error: { code: 'ERUNTIME', message: expect.stringMatching(/not a valid tools\/call result: .*neither a result nor an error/) } });
    expect(await connection.call('answer', { how: 'empty' }, options)).toMatchObject({ ok: false, error: { code: 'ERUNTIME', message: expect.stringMatching(/neither a result nor an error/) } });
    expect(await connection.call('answer', { how: 'error' }, options)).toMatchObject({ ok: false, error: { code: 'ERUNTIME', message: expect.stringMatching(/answered with an error: .*refused by odd/) } });
    // Answers to calls never made reach no call: the call gets its own.
    expect(firstText(await connection.call('answer', { how: 'other-id' }, options))).toBe('mine');
    expect(connection.state().status).toBe('ready');
  });

  it('refuses a result over maxResultBytes with EQUOTA naming both sizes', async () => {
    const connection = connections.make(fixtureConfig('big-result'));
    await connection.start();
    const outcome = await connection.call('big', { megabytes: 2 }, options);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'EQUOTA', message: expect.stringMatching(/returned 20\d{5} bytes, over the 1048576 bytes/) } });
    expect(connection.state().status).toBe('ready');
  });

  it('stops reading a 50 MB reply at maxMessageBytes, refuses the call and restarts the server', async () => {
    const connection = connections.make(fixtureConfig('big-result'), { limits: { maxMessageBytes: 4 * 1024 * 1024 }, backoff: { initialMs: 50 } });
    const other = connections.make(fixtureConfig('normal', { name: 'other' }));
    await Promise.all([connection.start(), other.start()]);
    const before = bytesRead();
    const outcome = await connection.call('big', { megabytes: 50 }, options);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'EQUOTA', message: expect.stringMatching(/over 4194304 bytes \(this call allows 1048576\)/) } });
    await eventually(() => connection.state().status === 'ready');
    // What this process read meanwhile (its pipes included): the 4 MB the bound allows and a chunk
    // past it, not the 50 MB the server had to say while it was being ended.
    expect(bytesRead() - before).toBeLessThan(8 * 1024 * 1024);
    expect(connection.state().restarts).toBe(1);
    expect(firstText(await other.call('echo', { text: 'unaffected' }, options))).toBe('unaffected');
  });

  it('reports a server dying mid-call as ECRASH with its stderr, restarts it after a backoff, and keeps the others working', async () => {
    // A backoff long enough that the call made at once is made while it waits, however loaded the machine.
    const connection = connections.make(fixtureConfig('crash-on-call'), { backoff: { initialMs: 1_000 } });
    const other = connections.make(fixtureConfig('normal', { name: 'other' }));
    await Promise.all([connection.start(), other.start()]);
    const outcome = await connection.call('crash', {}, options);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'ECRASH', message: expect.stringMatching(/out of cheese/) } });
    expect(connection.state()).toMatchObject({ status: 'restarting', detail: expect.stringMatching(/again in 1000 ms/) });
    expect(await connection.call('echo', { text: 'too soon' }, options)).toMatchObject({ ok: false, error: { code: 'EUNAVAILABLE' } });
    expect(firstText(await other.call('echo', { text: 'fine' }, options))).toBe('fine');
    await eventually(() => connection.state().status === 'ready');
    expect(connection.state().restarts).toBe(1);
    expect(firstText(await connection.call('echo', { text: 'back' }, options))).toBe('back');
  });

  it('waits twice as long after each failed restart, and gives up after maxRestarts in a row, saying why', async () => {
    const marker = `${makeTempFolder()}/started`;
    const connection = connections.make(fixtureConfig('starts-once', { args: [marker] }), { backoff: { initialMs: 100, maxRestarts: 3 } });
    await connection.start();
    // Every wait as the connection sets it, so that none is missed by polling that runs late on a loaded machine.
    const waits: string[] = [];
    const watched = connection as unknown as { setStatus(status: string, detail: string | undefined): void };
    const setStatus = watched.setStatus.bind(connection);
    watched.setStatus = (status, detail) => {
      const wait = /again in (\d+) ms/.exec(detail ?? '');
      if (status === 'restarting' && wait) waits.push(wait[1]!);
      setStatus(status, detail);
    };
    await connection.call('crash', {}, options);
    await eventually(() => connection.state().status === 'failed');
    expect(waits).toEqual(['100', '200', '400']);
    expect(connection.state()).toMatchObject({ restarts: 3, detail: expect.stringMatching(/gave up after 3 failed restarts.*refusing to start a second time/) });
  });

  it('re-fetches and vets its list on notifications/tools/list_changed and tells the listeners', async () => {
    const connection = connections.make(fixtureConfig('changes-list'));
    await connection.start();
    const heard = new Promise<string[]>((resolve) => connection.onToolsChanged((tools) => resolve(tools.map((tool) => tool.name))));
    await connection.call('grow', {}, options);
    expect(await heard).toContain('added');
    expect(firstText(await connection.call('added', {}, options))).toBe('new');
  });

  it('registers the rest of a list whose entries share a name, refusing each duplicate', async () => {
    const connection = connections.make(fixtureConfig('duplicates'));
    await connection.start();
    expect(connection.tools().map((tool) => tool.name)).toEqual(['add']);
    expect(connection.state().refused).toEqual([
      { name: 'echo', message: expect.stringMatching(/2 tools named "echo"/) },
      { name: 'echo', message: expect.stringMatching(/2 tools named "echo"/) },
    ]);
  });

  it('refuses tools whose schemas are not JSON Schema for an object, registering the others', async () => {
    const connection = connections.make(fixtureConfig('invalid-schema'));
    await connection.start();
    expect(connection.tools().map((tool) => tool.name)).toEqual(['fine', 'older']);
    expect(connection.state().refused.map((tool) => tool.name)).toEqual(['not_schema', 'not_object', 'bad name!', 'huge', 'remote_ref']);
  });

  it('stays stopped when closed while it starts', async () => {
    const connection = connections.make(scriptConfig('slow', 'setInterval(() => {}, 1000)'));
    const starting = connection.start();
    await connection.close();
    await expect(starting).rejects.toThrow(/slow was stopped while it started/);
    expect(connection.state().status).toBe('stopped');
  });

  it('stays stopped after close(), which may be called twice', async () => {
    const connection = connections.make(fixtureConfig('normal'));
    await connection.start();
    await connection.close();
    await connection.close();
    expect(connection.state().status).toBe('stopped');
    expect(await connection.call('echo', { text: 'x' }, options)).toMatchObject({ ok: false, error: { code: 'EUNAVAILABLE' } });
    await expect(connection.start()).rejects.toThrow(/was stopped/);
  });
});

process.on('exit', () => removeTempFolder(home));

/** What a call of `flood` is answered with: 50 MB of text, as one JSON body or one event of a stream. */
async function flood(response: import('node:http').ServerResponse, sessionId: string, id: unknown, as: 'json' | 'event'): Promise<void> {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`;
  const tail = '"}]}}';
  response.writeHead(200, { 'content-type': as === 'json' ? 'application/json' : 'text/event-stream', 'mcp-session-id': sessionId });
  response.on('error', () => {});
  response.write(as === 'json' ? head : `event: message\ndata: ${head}`);
  const megabyte = 'x'.repeat(1024 * 1024);
  for (let sent = 0; sent < 50 && !response.destroyed; sent++) {
    if (!response.write(megabyte)) await new Promise((resolve) => response.once('drain', resolve).once('close', resolve));
  }
  if (!response.destroyed) response.end(as === 'json' ? tail : `${tail}\n\n`);
}

/**
 * A Streamable HTTP MCP server with one tool, which can forget its sessions (as a restarted server
 * does); `withFlood` adds a second, `flood`, answered with 50 MB (see flood()).
 */
async function startHttpServer(withFlood = false) {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const authorizations: (string | undefined)[] = [];
  const http = createServer(async (request, response) => {
    authorizations.push(request.headers.authorization);
    const sessionId = request.headers['mcp-session-id'] as string | undefined;
    let transport = sessionId ? sessions.get(sessionId) : undefined;
    if (!transport && sessionId) {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      return;
    }
    if (!transport) {
      const created = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (id) => void sessions.set(id, created) });
      const server = new McpServer({ name: 'remote', version: '1.0.0' });
      server.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
      if (withFlood) server.registerTool('flood', { inputSchema: { as: z.enum(['json', 'event']) } }, () => ({ content: [] }));
      if (withFlood) server.registerTool('lie', { inputSchema: {} }, () => ({ content: [] }));
      if (withFlood) server.registerTool('drop', { inputSchema: {} }, () => ({ content: [] }));
      await server.connect(created);
      transport = created;
    }
    if (request.method !== 'POST') return void (await transport.handleRequest(request, response));
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { method?: string; id?: unknown; params?: { name?: string; arguments?: { as?: 'json' | 'event' } } };
    if (withFlood && body.method === 'tools/call' && body.params?.name === 'lie') {
      // The gate's own refusal, word for word, as this server's error answer.
      const message = "the server's message exceeded maximum size of 1 bytes; the gate stopped reading it";
      response.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': transport.sessionId! });
      return void response.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32603, message, data: { gateRefusal: 'a guess' } } }));
    }
    // A server that goes away under a call: the connection is cut with the request read, no answer begun.
    if (withFlood && body.method === 'tools/call' && body.params?.name === 'drop') return void request.socket.destroy();
    if (withFlood && body.method === 'tools/call' && body.params?.name === 'flood' && transport.sessionId) return flood(response, transport.sessionId, body.id, body.params.arguments?.as ?? 'json');
    await transport.handleRequest(request, response, body);
  });
  await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`,
    authorizations,
    forgetSessions: () => sessions.clear(),
    close: () => {
      http.closeAllConnections();
      http.close();
    },
  };
}

describe('an upstream Streamable HTTP server', () => {
  const SECRET = 'ghp_0123456789abcdef';
  const httpConnections = new Connections({ home, resolveSecret: async (name) => (name === 'GITHUB_TOKEN' ? SECRET : undefined) });
  afterEach(() => httpConnections.closeAll());

  it('is reached with its headers, secrets filled in, and answers calls', async () => {
    const server = await startHttpServer();
    try {
      const connection = httpConnections.make({ name: 'remote', transport: 'http', url: server.url, headers: { Authorization: 'Bearer $ENV.GITHUB_TOKEN' } });
      await connection.start();
      expect(connection.tools().map((tool) => tool.name)).toEqual(['echo']);
      // A 2025-only server (the v1 SDK): server/discover finds nothing newer, so a 2025 session.
      expect(connection.state().protocol).toMatch(/^2025-\d\d-\d\d$/);
      expect(firstText(await connection.call('echo', { text: 'over http' }, options))).toBe('over http');
      expect(new Set(server.authorizations)).toEqual(new Set([`Bearer ${SECRET}`]));
    } finally {
      server.close();
    }
  });

  it('refuses to start with a url that is not one', async () => {
    const connection = httpConnections.make({ name: 'remote', transport: 'http', url: 'localhost:8080', headers: {} });
    await expect(connection.start()).rejects.toThrow(/remote: its url "localhost:8080" is not an http\(s\) URL/);
  });

  it('refuses to start when a header names an unknown secret', async () => {
    const connection = httpConnections.make({ name: 'remote', transport: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer $ENV.NOT_STORED' } });
    await expect(connection.start()).rejects.toThrow(/remote: its headers cannot be filled in: \$ENV\.NOT_STORED is not defined/);
  });

  for (const as of ['json', 'event'] as const) {
    it(`stops reading an answer over maxMessageBytes (50 MB as ${as === 'json' ? 'one JSON body' : 'one event of a stream'}), refuses the call and goes on serving`, async () => {
      const server = await startHttpServer(true);
      try {
        const connection = httpConnections.make({ name: 'remote', transport: 'http', url: server.url, headers: {} }, { limits: { maxMessageBytes: 4 * 1024 * 1024 } });
        await connection.start();
        const before = bytesRead();
        const outcome = await connection.call('flood', { as }, options);
        expect(outcome).toMatchObject({ ok: false, error: { code: 'EQUOTA', message: expect.stringMatching(/over 4194304 bytes \(this call allows 1048576\); the gate stopped reading it/) } });
        expect(bytesRead() - before).toBeLessThan(12 * 1024 * 1024);
        expect(firstText(await connection.call('echo', { text: 'still here' }, options))).toBe('still here');
        expect(connection.state()).toMatchObject({ status: 'ready', restarts: 0 });
      } finally {
        server.close();
      }
    });
  }

  it("gets no EQUOTA for writing the gate's refusal in its own error answer: that is its error, told as its own", async () => {
    const server = await startHttpServer(true);
    try {
      const connection = httpConnections.make({ name: 'remote', transport: 'http', url: server.url, headers: {} });
      await connection.start();
      expect(await connection.call('lie', {}, options)).toMatchObject({ ok: false, error: { code: 'ERUNTIME', message: expect.stringMatching(/^remote__lie: the server answered with an error: /) } });
    } finally {
      server.close();
    }
  });

  it('says the connection failed, and not that the answer was wrong, when a server cuts it under a call; and goes on serving', async () => {
    const server = await startHttpServer(true);
    try {
      const connection = httpConnections.make({ name: 'remote', transport: 'http', url: server.url, headers: {} });
      await connection.start();
      expect(await connection.call('drop', {}, options)).toMatchObject({
        ok: false,
        error: { code: 'ECRASH', message: expect.stringMatching(/^remote__drop: the connection to server remote failed before it answered \(.*(other side closed|ECONNRESET).*\); the call may or may not have run there$/) },
      });
      expect(firstText(await connection.call('echo', { text: 'still here' }, options))).toBe('still here');
    } finally {
      server.close();
    }
  });

  it('says a server nothing listens for could not be reached, with the socket\'s own words', async () => {
    const server = await startHttpServer();
    server.close();
    const connection = httpConnections.make({ name: 'remote', transport: 'http', url: server.url, headers: {} });
    await expect(connection.start()).rejects.toThrow(/^server remote could not start: its connection failed: connect ECONNREFUSED 127\.0\.0\.1:\d+/);
  });

  it('reconnects after its session drops', async () => {
    const server = await startHttpServer();
    try {
      const connection = httpConnections.make({ name: 'remote', transport: 'http', url: server.url, headers: {} }, { backoff: { initialMs: 50 } });
      await connection.start();
      server.forgetSessions();
      expect(await connection.call('echo', { text: 'lost' }, options)).toMatchObject({ ok: false, error: { code: 'ECRASH', message: expect.stringMatching(/HTTP 404/) } });
      await eventually(() => connection.state().status === 'ready' && connection.state().restarts === 1);
      expect(firstText(await connection.call('echo', { text: 'found' }, options))).toBe('found');
    } finally {
      server.close();
    }
  });
});
