/**
 * Subprocess and HTTP tools from manifest files, and output schemas held for every source, through
 * the official MCP client and a real gate: a field holding shell syntax reaches the program as one
 * argument, an HTTP tool reaches only a granted host with its secret in a header, and a result that
 * breaks its declared schema (a program's, an endpoint's, an upstream server's) is an error the
 * agent reads and the audit keeps.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stepsOfAll } from '../../shared/auditSteps';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { toolgateRoot } from '../../main/state/paths';
import { connectMcp, makeTempDirs, readToken, textOf, type TempDirs, approveEveryPrompt } from './helpers';
import { WAIT_MS, waitUntil } from '../fixtures/processes';

const UPSTREAM = resolve('test/fixtures/upstreamServer.mjs');
const API_KEY = 'sk-test-0123456789abcdef';

interface Listening {
  server: Server;
  port: number;
  hits: Array<{ url: string; headers: IncomingHttpHeaders }>;
}

/** A JSON service on 127.0.0.1 that says back the path it was asked for. */
async function listen(): Promise<Listening> {
  const hits: Listening['hits'] = [];
  const server = createServer((request, response) => {
    hits.push({ url: request.url ?? '', headers: request.headers });
    const body = request.url === '/v1/broken' ? { q: 42 } : { q: decodeURIComponent((request.url ?? '').replace(/^\/v1\/items\//, '')) };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

const stringOutput = (field: string) => ({ type: 'object', properties: { [field]: { type: 'string' } }, required: [field] });
const textInput = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false };

let granted: Listening;
let ungranted: Listening;
let dirs: TempDirs;
let gate: RunningGate;
let agent: Client;

function manifest(name: string, fields: Record<string, unknown>): string {
  const path = join(dirs.outside, `${name}.json`);
  writeFileSync(path, JSON.stringify({ name, description: `the ${name} test tool`, tier: 'SAFE', inputSchema: textInput, ...fields }));
  return path;
}

beforeAll(async () => {
  granted = await listen();
  ungranted = await listen();
  dirs = makeTempDirs();
  const subprocess = (args: string[], output: string) => ({ sideEffects: ['ProcessSpawn'], source: { kind: 'subprocess', command: '/usr/bin/printf', args, output } });
  const http = (port: number, path: string, secret = 'API_KEY') => ({
    sideEffects: ['NetRead'],
    capabilities: ['net:read'],
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    source: { kind: 'http', url: `http://127.0.0.1:${port}${path}`, headers: { Authorization: `Bearer $ENV.${secret}` }, response: 'json' },
  });
  const toolModules = [
    manifest('echo_argv', { ...subprocess(['<%s>\\n', 'before', '{{text}}', 'after'], 'text'), outputSchema: stringOutput('text') }),
    manifest('changing_argv', { ...subprocess(['<%s>\\n', '{{text}}'], 'text'), outputSchema: stringOutput('text') }),
    manifest('count_words', { ...subprocess(['{"count":"%s"}', '{{text}}'], 'json'), outputSchema: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] } }),
    manifest('api_item', { ...http(granted.port, '/v1/items/{{q}}'), outputSchema: stringOutput('q') }),
    manifest('api_broken', { ...http(granted.port, '/v1/broken'), outputSchema: stringOutput('q') }),
    manifest('api_elsewhere', { ...http(ungranted.port, '/v1/items/{{q}}'), outputSchema: stringOutput('q') }),
    manifest('api_misbound', { ...http(granted.port, '/v1/items/{{q}}', 'OTHER_KEY'), outputSchema: stringOutput('q') }),
    manifest('api_denied', { ...http(granted.port, '/v1/items/{{q}}'), outputSchema: stringOutput('q') }),
  ];
  // A host rule judges an HTTP tool's endpoint as it judges http_fetch's URL.
  writeFileSync(join(dirs.home, 'policy.json'), JSON.stringify({ deny: [{ rule: 'api_denied(domain:127.0.0.1:*)', reason: 'not this host' }] }));
  // A secret the person stored for another tool's host: the manifest naming it may not send it.
  writeFileSync(join(dirs.home, 'secrets.json'), JSON.stringify({ OTHER_KEY: { value: 'other-secret-0123456789', for: ['http_fetch:api.example.com'] } }), { mode: 0o600 });
  writeFileSync(
    join(dirs.home, 'servers.json'),
    JSON.stringify({ mcpServers: { counter: { command: process.execPath, args: [UPSTREAM, 'output-schema'], sandbox: { readable: [toolgateRoot(), resolve(process.execPath, '../..')] } } } }),
  );
  process.env.API_KEY = API_KEY;
  gate = await startGate({
    home: dirs.home,
    workspace: dirs.workspace,
    port: 0,
    poolSize: 1,
    approvalTimeoutMs: WAIT_MS,
    toolModules,
    secretEnv: ['API_KEY'],
    grants: ['fs:read', `net:read:127.0.0.1:${granted.port}`],
  });
  agent = await connectMcp(gate.mcpUrl, readToken(dirs.home));
  // Whatever asks a person here (an unreviewed upstream tool) is approved: the checks under test come after.
  approveEveryPrompt(gate.backend);
});

afterAll(async () => {
  await agent?.close();
  await gate?.close();
  dirs?.remove();
  granted?.server.close();
  ungranted?.server.close();
  delete process.env.API_KEY;
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await agent.callTool({ name, arguments: args })) as CallToolResult;
}

function codeOf(result: CallToolResult): unknown {
  return result._meta?.['toolgate/errorCode'];
}

/** What the audit log kept of the call that gave this result. */
function auditedCall(result: CallToolResult): string {
  const callId = result._meta?.['toolgate/callId'];
  return JSON.stringify(stepsOfAll(gate.gate.audit.list({ limit: 1000 })).filter((record) => record.callId === callId));
}

describe('subprocess tools', () => {
  it('pass a field holding shell syntax to the program as one argument, never to a shell', async () => {
    const hostile = '; rm -rf ~ && echo $(id) `whoami` | tee x "quoted" \'single\'';
    const result = await call('echo_argv', { text: hostile });
    expect(result.isError).toBe(false);
    const lines = (result.structuredContent as { text: string }).text.trimEnd().split('\n');
    expect(lines).toEqual(['before', hostile, 'after'].map((arg) => `<${arg}>`));
  });

  it('refuse a field that the program would take for an option', async () => {
    const result = await call('echo_argv', { text: '--version' });
    expect(codeOf(result)).toBe('EVALIDATION');
    expect(textOf(result)).toContain('which the program would read as an option');
  });

  it('refuse to run a --tools manifest changed after the gate loaded it, running nothing', async () => {
    expect((await call('changing_argv', { text: 'first' })).structuredContent).toEqual({ text: '<first>\n' });
    const path = join(dirs.outside, 'changing_argv.json');
    writeFileSync(path, readFileSync(path, 'utf8').replace('<%s>', '[%s]'));
    const refused = await call('changing_argv', { text: 'second' });
    expect(codeOf(refused)).toBe('EPERMISSION');
    expect(textOf(refused)).toContain(`tool manifest ${path} changed since it was reviewed or the gate loaded it`);
  });

  it('fail a call whose output breaks the declared schema, saying where, and audit it', async () => {
    const result = await call('count_words', { text: 'many' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('count_words returned output that breaks its own schema: count:');
    expect(auditedCall(result)).toContain('count_words returned output that breaks its own schema');
  });
});

describe('HTTP tools', () => {
  it('reach a granted endpoint, each field URL-encoded in its path and the secret only in the header', async () => {
    const q = 'a/b?c=d#e@evil.example';
    const result = await call('api_item', { q });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({ q });
    const hit = granted.hits.at(-1)!;
    expect(hit.url).toBe(`/v1/items/${encodeURIComponent(q)}`);
    expect(hit.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(JSON.stringify(result)).not.toContain(API_KEY);
  });

  it('are refused when no grant covers their host and port, before any request goes out', async () => {
    const result = await call('api_elsewhere', { q: 'x' });
    expect(codeOf(result)).toBe('EPERMISSION');
    expect(textOf(result)).toContain(`--grant net:read:127.0.0.1:${ungranted.port}`);
    expect(ungranted.hits).toEqual([]);
  });

  it("are refused before any request when the manifest's secret is stored --for elsewhere", async () => {
    const before = granted.hits.length;
    const result = await call('api_misbound', { q: 'x' });
    expect(codeOf(result)).toBe('EPERMISSION');
    expect(textOf(result)).toContain('$ENV.OTHER_KEY may go only to http_fetch:api.example.com');
    expect(textOf(result)).toContain(`--for api_misbound:127.0.0.1:${granted.port}`);
    expect(granted.hits.length).toBe(before);
  });

  it('are judged by host rules on their endpoint: a deny naming its host refuses the call', async () => {
    const before = granted.hits.length;
    const result = await call('api_denied', { q: 'x' });
    expect(codeOf(result)).toBe('EDENIED');
    expect(textOf(result)).toContain('not this host');
    expect(granted.hits.length).toBe(before);
  });

  it('fail a call whose response breaks the declared schema', async () => {
    const result = await call('api_broken', { q: 'x' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('api_broken returned output that breaks its own schema: q:');
  });
});

describe("an upstream tool's declared outputSchema", () => {
  it('is held: structuredContent that breaks it is an error the agent reads, and is audited', async () => {
    const waiting = await gate.backend.handlers.upstreamServers({});
    const server = waiting.servers.find((entry) => entry.name === 'counter')!;
    await gate.backend.handlers.approveUpstreamLaunch({ server: 'counter', launchHash: server.launchHash });
    let ready = await gate.backend.handlers.upstreamServers({});
    await waitUntil(async () => {
      ready = await gate.backend.handlers.upstreamServers({});
      return ready.servers[0]!.status === 'ready';
    }, 'the counter server to be ready');
    const tools = ready.servers[0]!.tools.map((tool) => ({ name: tool.name, definitionHash: tool.definitionHash, class: tool.class }));
    await gate.backend.handlers.reviewUpstream({ server: 'counter', tools });

    const good = await call('counter__count', {});
    expect(good.isError).toBe(false);
    expect(good.structuredContent).toEqual({ count: 3 });
    const broken = await call('counter__broken_count', {});
    expect(broken.isError).toBe(true);
    expect(codeOf(broken)).toBe('ERUNTIME');
    expect(textOf(broken)).toContain('counter__broken_count returned output that breaks its own schema: structuredContent: /count: must be number');
    expect(auditedCall(broken)).toContain('must be number');
  });
});
