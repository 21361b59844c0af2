/**
 * Upstream servers in both MCP eras: the gate negotiates the revision with `server/discover` and
 * speaks 2026-07-28 (stateless, tool-list changes on a subscriptions/listen stream) to a server
 * that offers it, and a 2025 session to one that does not, over Streamable HTTP and over stdio.
 * The 2025-only servers of the other specs (the v1-SDK fixture, server-everything,
 * server-filesystem) keep their 2025 sessions; servers that claim 2026-07-28 and then misbehave
 * are held to the same bounds as any other.
 */
import { resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { UpstreamSandboxSchema, type UpstreamServerConfig } from '../../shared/upstream';
import type { UpstreamConnection } from '../../main/upstream/types';
import { STDIO_PROBE_MS } from '../../main/upstream/upstreamSession';
import { WAIT_MS, waitUntil } from '../fixtures/processes';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { Connections, eventually, firstText, fixtureConfig, scriptConfig, TEST_READABLE } from './helpers';
import { startEnvelopelessHttpServer, startHeaderParamHttpServer, startModernHttpServer, type LoopbackServer } from './modernHttpServer';

const MODERN_FIXTURE = resolve('test/fixtures/modernUpstreamServer.mjs');
const options = { timeoutMs: WAIT_MS, maxResultBytes: 1024 * 1024 };

const home = makeTempFolder();
const connections = new Connections({ home, resolveSecret: async () => undefined });
const servers: LoopbackServer[] = [];
afterEach(async () => {
  await connections.closeAll();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
afterAll(() => removeTempFolder(home));

/** A stdio entry running the v2-SDK fixture in one of its modes. */
function modernStdio(mode: string, startAfterMs?: number): UpstreamServerConfig {
  const args = [MODERN_FIXTURE, mode, ...(startAfterMs === undefined ? [] : [String(startAfterMs)])];
  return { name: 'modern', transport: 'stdio', command: process.execPath, args, env: {}, sandbox: UpstreamSandboxSchema.parse({ readable: TEST_READABLE }) };
}

async function http(legacy: 'reject' | 'stateless'): Promise<LoopbackServer> {
  const server = await startModernHttpServer(legacy);
  servers.push(server);
  return server;
}

/** What every 2026-07-28 server of the fixture must do through the gate: list, call, progress, and a list change heard. */
async function exercise(connection: UpstreamConnection): Promise<void> {
  expect(connection.tools().map((tool) => tool.name)).toEqual(['echo', 'add', 'progress', 'wait', 'cancelled', 'grow']);
  expect(firstText(await connection.call('echo', { text: 'héllo, 2026' }, options))).toBe('héllo, 2026');
  expect(firstText(await connection.call('add', { a: 2, b: 3 }, options))).toBe('5');
  const progress: unknown[] = [];
  expect(firstText(await connection.call('progress', {}, { ...options, onProgress: (update) => progress.push(update) }))).toBe('done');
  expect(progress).toEqual([
    { progress: 1, total: 2, message: 'step 1' },
    { progress: 2, total: 2, message: 'step 2' },
  ]);
  const heard = new Promise<string[]>((done) => connection.onToolsChanged((tools) => done(tools.map((tool) => tool.name))));
  expect(firstText(await connection.call('grow', {}, options))).toBe('grown');
  expect(await heard).toContain('added');
  expect(firstText(await connection.call('added', {}, options))).toBe('new');
}

describe('a Streamable HTTP upstream that speaks only 2026-07-28', () => {
  it('is spoken to in 2026-07-28 (no initialize), its tools listed and called, its progress passed on, its list change heard', async () => {
    const server = await http('reject');
    const connection = connections.make({ name: 'modern', transport: 'http', url: server.url, headers: {} });
    await connection.start();
    expect(connection.state()).toMatchObject({ status: 'ready', protocol: '2026-07-28', tools: 6 });
    await exercise(connection);
    expect(server.methods).toContain('server/discover');
    expect(server.methods).toContain('subscriptions/listen');
    expect(server.methods).not.toContain('initialize');
  });

  it('is restarted with backoff when its listen stream ends, and is heard again', async () => {
    const server = await http('reject');
    const connection = connections.make({ name: 'modern', transport: 'http', url: server.url, headers: {} }, { backoff: { initialMs: 50, maxMs: 200, maxRestarts: 50 } });
    await connection.start();
    const url = new URL(server.url);
    await server.close();
    await eventually(() => connection.state().status !== 'ready');
    expect(connection.state().detail).toMatch(/subscriptions\/listen stream .* ended|could not start/);
    // The server is back on the same port: the gate reconnects and its tools answer again.
    const back = await startModernHttpServerOn(url);
    await eventually(() => connection.state().status === 'ready');
    expect(connection.state().restarts).toBeGreaterThanOrEqual(1);
    expect(firstText(await connection.call('echo', { text: 'back' }, options))).toBe('back');
    await back.close();
  });
});

/**
 * A call that never answers: timed out, then withdrawn; each time the server is told to stop, and it
 * answers the next call. The server counts a wait it was told to stop only once it has taken it, so
 * each is left a second or two first: ample for a server on a loaded machine to take a call.
 */
async function timeOutAndCancel(connection: UpstreamConnection): Promise<void> {
  const timedOut = await connection.call('wait', {}, { ...options, timeoutMs: 2_000 });
  expect(timedOut).toMatchObject({ ok: false, error: { code: 'ETIMEOUT', message: expect.stringMatching(/did not answer within 2000 ms/) } });
  const withdraw = new AbortController();
  setTimeout(() => withdraw.abort(), 1_000);
  const cancelled = await connection.call('wait', {}, { ...options, signal: withdraw.signal });
  expect(cancelled).toMatchObject({ ok: false, error: { code: 'EDENIED', details: { cancelled: true } } });
  // The server hears of the second one as the gate leaves it: a stream closed (http), a notifications/cancelled (stdio).
  let count = '';
  await waitUntil(async () => (count = firstText(await connection.call('cancelled', {}, options))) === '2', 'the server to count both waits as cancelled');
  expect(count).toBe('2');
  expect(connection.state().status).toBe('ready');
}

describe('a 2026-07-28 upstream call that does not answer', () => {
  it('over http times out and is withdrawn, the server told to stop each time', async () => {
    const server = await http('reject');
    const connection = connections.make({ name: 'modern', transport: 'http', url: server.url, headers: {} });
    await connection.start();
    await timeOutAndCancel(connection);
  });

  it('over stdio times out and is withdrawn, the server told to stop each time', async () => {
    const connection = connections.make(modernStdio('modern'));
    await connection.start();
    await timeOutAndCancel(connection);
  });
});

describe('a 2026-07-28 http upstream whose tools mark arguments as headers (x-mcp-header, SEP-2243)', () => {
  it('is sent each marked argument as an Mcp-Param header, and a tool with an invalid mark is refused, never called', async () => {
    const server = await startHeaderParamHttpServer();
    servers.push(server);
    const connection = connections.make({ name: 'marked', transport: 'http', url: server.url, headers: {} });
    await connection.start();
    expect(connection.tools().map((tool) => tool.name)).toEqual(['region']);
    expect(connection.state().refused).toEqual([{ name: 'spaced', message: expect.stringMatching(/cannot be sent as MCP headers: region: x-mcp-header "My Region" is not an HTTP header name/) }]);
    expect(firstText(await connection.call('region', { region: 'eu-west 1', note: 'unmarked' }, options))).toBe('called');
    expect(firstText(await connection.call('region', { region: ' padded' }, options))).toBe('called');
    expect((await connection.call('spaced', { region: 'x' }, options)).ok).toBe(false);
    expect(server.calls.map((call) => [call.tool, call.headers['mcp-param-region'], call.headers['mcp-param-note']])).toEqual([
      ['region', 'eu-west 1', undefined],
      // Leading space: sent as base64, as SEP-2243 says.
      ['region', `=?base64?${Buffer.from(' padded').toString('base64')}?=`, undefined],
    ]);
  });
});

describe('a Streamable HTTP upstream that speaks both eras', () => {
  it('is spoken to in 2026-07-28, the newer revision both sides have', async () => {
    const server = await http('stateless');
    const connection = connections.make({ name: 'modern', transport: 'http', url: server.url, headers: {} });
    await connection.start();
    expect(connection.state().protocol).toBe('2026-07-28');
    await exercise(connection);
    expect(server.methods).not.toContain('initialize');
  });
});

describe('a stdio upstream', () => {
  it('that speaks only 2026-07-28 and starts too slowly for the probe is started again, pinned to the revision its refusal of a 2025 initialize names', async () => {
    // It reads nothing until past the probe's time: the gate falls back to a 2025 initialize, which it refuses (-32022).
    const connection = connections.make(modernStdio('modern', STDIO_PROBE_MS + 500));
    await connection.start();
    expect(connection.state()).toMatchObject({ status: 'ready', protocol: '2026-07-28' });
    await exercise(connection);
  });

  it('that writes a call\'s progress and its result in one write has every step passed on, in order, before the result', async () => {
    const connection = connections.make(modernStdio('modern-one-write'));
    await connection.start();
    for (let call = 0; call < 3; call++) {
      const seen: string[] = [];
      const outcome = await connection.call('progress', {}, { ...options, onProgress: (update) => seen.push(`${update.progress}/${update.total} ${update.message}`) });
      seen.push(firstText(outcome));
      expect(seen).toEqual(['1/2 step 1', '2/2 step 2', 'done']);
    }
  });

  it('that speaks only 2026-07-28 (the v2 SDK, a 2025 initialize refused) is spoken to in 2026-07-28 on its own pipe', async () => {
    const connection = connections.make(modernStdio('modern'));
    await connection.start();
    expect(connection.state()).toMatchObject({ status: 'ready', protocol: '2026-07-28' });
    await exercise(connection);
  });

  it('that speaks both eras is spoken to in 2026-07-28', async () => {
    const connection = connections.make(modernStdio('both'));
    await connection.start();
    expect(connection.state().protocol).toBe('2026-07-28');
    await exercise(connection);
  });

  it('that speaks only 2025 (the v1 SDK) keeps its 2025 session, and a restart starts it as one', async () => {
    const connection = connections.make(fixtureConfig('crash-on-call'), { backoff: { initialMs: 50 } });
    await connection.start();
    expect(connection.state().protocol).toBe('2025-11-25');
    await connection.call('crash', {}, options);
    await eventually(() => connection.state().status === 'ready' && connection.state().restarts === 1);
    expect(connection.state().protocol).toBe('2025-11-25');
    expect(firstText(await connection.call('echo', { text: 'again' }, options))).toBe('again');
  });

  it('that exits on any request before initialize (as some 2025 servers do) is started again, straight to initialize', async () => {
    // A 2025 server by hand: the first line it reads must be initialize, or it leaves.
    const script = `
      const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
      let first = true;
      require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
        const m = JSON.parse(line);
        if (first && m.method !== 'initialize') { console.error('expected initialize, got ' + m.method); process.exit(1); }
        first = false;
        if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'strict', version: '1' } } });
        else if (m.method === 'tools/list') send({ id: m.id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } });
        else if (m.method === 'tools/call') send({ id: m.id, result: { content: [{ type: 'text', text: 'strict echo' }] } });
      });`;
    const connection = connections.make(scriptConfig('strict', script));
    await connection.start();
    expect(connection.state()).toMatchObject({ status: 'ready', protocol: '2025-11-25', restarts: 0 });
    expect(firstText(await connection.call('echo', {}, options))).toBe('strict echo');
  });
});

describe('an upstream that claims 2026-07-28 in server/discover and then misbehaves', () => {
  it('over stdio, answering without the 2026-07-28 envelope (no resultType), does not start, and says why', async () => {
    const connection = connections.make(modernStdio('claims-modern-no-envelope'));
    await expect(connection.start()).rejects.toThrow(/^server modern could not start: its answer is not what MCP says it must be: Invalid result for tools\/list: missing required resultType/);
    expect(connection.state().status).toBe('failed');
  });

  it('over http, answering without the 2026-07-28 envelope, does not start, and says why', async () => {
    const server = await startEnvelopelessHttpServer();
    servers.push(server);
    const connection = connections.make({ name: 'claims', transport: 'http', url: server.url, headers: {} });
    await expect(connection.start()).rejects.toThrow(/^server claims could not start: .*missing required resultType/);
    expect(server.methods.slice(0, 2)).toEqual(['server/discover', 'tools/list']);
  });

  it('whose tools/list answer is not a list does not start, and says what was wrong', async () => {
    const connection = connections.make(modernStdio('claims-modern-bad-list'));
    await expect(connection.start()).rejects.toThrow(/could not start: its answer is not what MCP says it must be: Invalid result for tools\/list: .*"tools".*expected array, received string/);
  });

  it('listing 600 tools gets the first 512 vetted one by one: an odd tool is refused alone, not the whole list', async () => {
    const connection = connections.make(modernStdio('claims-modern-huge-list'));
    await connection.start();
    const refused = connection.state().refused;
    expect(connection.tools()).toHaveLength(509);
    expect(refused.filter((tool) => /the gate takes the first 512/.test(tool.message))).toHaveLength(88);
    expect(refused.find((tool) => tool.name === 't1')?.message).toMatch(/over the 65536 bytes the gate takes/);
    expect(refused.find((tool) => tool.name === 't2')?.message).toMatch(/inputSchema's type is "string"/);
    expect(refused.find((tool) => tool.name === 'bad name!')?.message).toMatch(/a tool name is 1 to 64/);
  });

  it('whose list is one message over maxMessageBytes does not start, and says so', async () => {
    const connection = connections.make(modernStdio('claims-modern-huge-list'), { limits: { maxMessageBytes: 32 * 1024 } });
    await expect(connection.start()).rejects.toThrow(/could not start: .*it sent a message over 32768 bytes, so the gate stopped reading it/);
  });

  it('saying it announces list changes and then refusing subscriptions/listen still starts, and the person is told its changes go unheard', async () => {
    const connection = connections.make(modernStdio('claims-modern-no-listen'));
    await connection.start();
    expect(connection.state()).toMatchObject({
      status: 'ready',
      protocol: '2026-07-28',
      detail: expect.stringMatching(/^changes to its tool list go unheard: it refused subscriptions\/listen \(.*Method not found.*\); restart the gate/),
    });
    expect(firstText(await connection.call('asked', {}, options))).toBe('never answered');
  });

  it('answering a call in no shape MCP knows gets ERUNTIME, its request for sampling is never answered, and it stays ready', async () => {
    const connection = connections.make(modernStdio('claims-modern-bad-call'));
    await connection.start();
    const outcome = await connection.call('call', {}, options);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'ERUNTIME', message: expect.stringMatching(/^modern__call: the server's reply is not a valid tools\/call result: Invalid result for tools\/call: .*"content"/) } });
    expect(firstText(await connection.call('asked', {}, options))).toBe('never answered');
    expect(connection.state().status).toBe('ready');
  });
});

/** The modern server again on a given address (after it went away). */
async function startModernHttpServerOn(url: URL): Promise<LoopbackServer> {
  return startModernHttpServer('reject', Number(url.port));
}
