/**
 * The gate's HTTP surface on loopback, probed with raw requests: the bearer token, the Host and
 * Origin guards (DNS rebinding, foreign pages) and the static console files (path traversal).
 * A refused request must never reach the executor.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rawRequest, startTestGate, type RawResponse, type TestGate } from './helpers';
import { stepsOfAll } from '../../shared/auditSteps';

let gate: TestGate;

beforeEach(async () => {
  gate = await startTestGate();
});

afterEach(async () => {
  await gate?.close();
});

const ACCEPT = 'application/json, text/event-stream';
const PROTOCOL = '2025-06-18';

/** A POST to /mcp with the given headers (token, Host, Origin as the test chooses). */
function postMcp(body: unknown, headers: Record<string, string>): Promise<RawResponse> {
  return rawRequest({
    port: gate.running.port,
    path: '/mcp',
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': PROTOCOL, ...headers },
    body: JSON.stringify(body),
  });
}

/** The JSON-RPC messages of a response body (plain JSON or an SSE stream). */
function jsonRpcMessages(response: RawResponse): Array<Record<string, any>> {
  if (String(response.headers['content-type']).startsWith('application/json')) return [JSON.parse(response.body)];
  return response.body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)));
}

/** Opens an MCP session by hand with the right token; returns its id. */
async function openSession(): Promise<string> {
  const auth = { authorization: `Bearer ${gate.token}` };
  const init = await postMcp(
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    },
    auth,
  );
  expect(init.status).toBe(200);
  const sessionId = init.headers['mcp-session-id'];
  if (typeof sessionId !== 'string') throw new Error('no mcp-session-id');
  const initialized = await postMcp({ jsonrpc: '2.0', method: 'notifications/initialized' }, { ...auth, 'mcp-session-id': sessionId });
  expect(initialized.status).toBe(202);
  return sessionId;
}

function echoCall(id: number, text: string) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } };
}

/** The refusals written to the audit log, as step names, oldest first. */
function refusedSteps(): string[] {
  return stepsOfAll(gate.running.gate.audit.list({ limit: 1000 }))
    .filter((record) => record.kind === 'rejected' && (record.payload as { step: string }).step !== 'execute')
    .map((record) => (record.payload as { step: string }).step)
    .reverse();
}

/** The echo texts that reached the executor (its 'invoked' audit records). */
function invokedTexts(): string[] {
  return stepsOfAll(gate.running.gate.audit.list({ limit: 1000 }))
    .filter((record) => record.kind === 'invoked')
    .map((record) => (record.payload as { arguments: { text: string } }).arguments.text);
}

describe('/mcp guards', () => {
  it('refuses a missing or wrong token with 401 and a bearer challenge', async () => {
    const sessionId = await openSession();
    const missing = await postMcp(echoCall(2, 'no-token'), { 'mcp-session-id': sessionId });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(jsonRpcMessages(missing)[0]!.error.message).toMatch(/bearer token/);
    const wrong = await postMcp(echoCall(3, 'wrong-token'), {
      'mcp-session-id': sessionId,
      authorization: `Bearer ${'0'.repeat(gate.token.length)}`,
    });
    expect(wrong.status).toBe(401);
    const prefix = await postMcp(echoCall(4, 'prefix-token'), {
      'mcp-session-id': sessionId,
      authorization: `Bearer ${gate.token.slice(0, 32)}`,
    });
    expect(prefix.status).toBe(401);
    const basic = await postMcp(echoCall(5, 'basic-token'), { 'mcp-session-id': sessionId, authorization: gate.token });
    expect(basic.status).toBe(401);
    expect(invokedTexts()).toEqual([]);
    expect(refusedSteps()).toEqual(['auth', 'auth', 'auth', 'auth']);
    expect(JSON.stringify(gate.running.gate.audit.list({ limit: 1000 }))).not.toContain(gate.token);
    expect(gate.running.gate.audit.verify().ok).toBe(true);
  });

  it('refuses a foreign Origin or Host with 403 even with the right token', async () => {
    const sessionId = await openSession();
    const auth = { authorization: `Bearer ${gate.token}`, 'mcp-session-id': sessionId };
    const evilOrigin = await postMcp(echoCall(2, 'evil-origin'), { ...auth, origin: 'http://evil.example' });
    expect(evilOrigin.status).toBe(403);
    expect(evilOrigin.body).toMatch(/origin/i);
    const otherPort = await postMcp(echoCall(3, 'other-port'), { ...auth, origin: 'http://127.0.0.1:1' });
    expect(otherPort.status).toBe(403);
    const nullOrigin = await postMcp(echoCall(4, 'null-origin'), { ...auth, origin: 'null' });
    expect(nullOrigin.status).toBe(403);
    const evilHost = await postMcp(echoCall(5, 'evil-host'), { ...auth, host: 'evil.example' });
    expect(evilHost.status).toBe(403);
    expect(evilHost.body).toMatch(/Host/);
    const rebound = await postMcp(echoCall(6, 'rebound-host'), { ...auth, host: `evil.example:${gate.running.port}` });
    expect(rebound.status).toBe(403);
    expect(invokedTexts()).toEqual([]);
    expect(refusedSteps()).toEqual(['origin', 'origin', 'origin', 'host', 'host']);
  });

  it('a correct request passes and is the only one that reaches the executor', async () => {
    const sessionId = await openSession();
    const auth = { authorization: `Bearer ${gate.token}`, 'mcp-session-id': sessionId };
    await postMcp(echoCall(2, 'refused'), { ...auth, origin: 'http://evil.example' });
    await postMcp(echoCall(3, 'refused'), { 'mcp-session-id': sessionId });
    const ok = await postMcp(echoCall(4, 'accepted'), { ...auth, host: `localhost:${gate.running.port}`, origin: `http://localhost:${gate.running.port}` });
    expect(ok.status).toBe(200);
    const reply = jsonRpcMessages(ok).find((message) => message.id === 4)!;
    expect(reply.result.isError).toBe(false);
    expect(reply.result.structuredContent).toEqual({ text: 'accepted' });
    expect(invokedTexts()).toEqual(['accepted']);
  });

  it('refuses a request without a session that is not initialize, and an unknown session', async () => {
    const auth = { authorization: `Bearer ${gate.token}` };
    const noSession = await postMcp(echoCall(1, 'sessionless'), auth);
    expect(noSession.status).toBe(400);
    expect(jsonRpcMessages(noSession)[0]!.error.message).toMatch(/initialize/);
    const unknown = await postMcp(echoCall(2, 'stale'), { ...auth, 'mcp-session-id': 'not-a-session' });
    expect(unknown.status).toBe(404);
    const garbage = await rawRequest({
      port: gate.running.port,
      path: '/mcp',
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: ACCEPT },
      body: '{"jsonrpc":',
    });
    expect(garbage.status).toBe(400);
    expect(invokedTexts()).toEqual([]);
    expect(refusedSteps()).toEqual(['parse']);
  });
});

describe('tools/call arguments that are not an object', () => {
  it('are refused by the pipeline with a clear message and audited, not dropped by the protocol layer', async () => {
    const sessionId = await openSession();
    const auth = { authorization: `Bearer ${gate.token}`, 'mcp-session-id': sessionId };
    const call = (id: number, args: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: args } });
    const cases: Array<[unknown, RegExp]> = [
      ['{"text":', /EVALIDATION: the arguments are not valid JSON/],
      [['hello'], /EVALIDATION: invalid arguments for echo/],
      [42, /EVALIDATION: invalid arguments for echo/],
    ];
    for (const [index, [args, expected]] of cases.entries()) {
      const response = await postMcp(call(10 + index, args), auth);
      const reply = jsonRpcMessages(response).find((message) => message.id === 10 + index)!;
      expect(reply.result.isError).toBe(true);
      expect(reply.result.content[0].text).toMatch(expected);
    }
    const rejected = stepsOfAll(gate.running.gate.audit.list({ limit: 100 })).filter((record) => record.kind === 'rejected');
    expect(rejected.map((record) => (record.payload as { step: string }).step).reverse()).toEqual(['parse', 'validate', 'validate']);
    // A string of valid JSON is what some agents send: it runs.
    const ok = await postMcp(call(20, '{"text":"as text"}'), auth);
    expect(jsonRpcMessages(ok).find((message) => message.id === 20)!.result.structuredContent).toEqual({ text: 'as text' });
  });
});

describe('static console files', () => {
  it('serves the console with its security headers', async () => {
    const index = await rawRequest({ port: gate.running.port, path: '/' });
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toMatch(/text\/html/);
    expect(index.headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(index.headers['x-frame-options']).toBe('DENY');
    expect(index.body).not.toContain(gate.token);
  });

  it('does not leak files outside the console folder through traversal', async () => {
    const paths = [
      '/../../etc/passwd',
      '/..%2f..%2f..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd',
      '/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/..%2fpackage.json',
      '/..%2f..%2fpackage.json',
      '/assets/..%2f..%2f..%2fpackage.json',
      '/%2e%2e%2f%2e%2e%2fmain%2fserver%2fstaticFiles.ts',
      '/..%5c..%5cpackage.json',
      '//etc/passwd',
      `/..%2f..%2f..%2f..%2f..%2f..%2f..%2f..${gate.dirs.home.replace(/\//g, '%2f')}%2ftoken`,
    ];
    for (const path of paths) {
      const response = await rawRequest({ port: gate.running.port, path });
      expect([400, 404], path).toContain(response.status);
      expect(response.body, path).not.toMatch(/root:.*:0:0:/);
      expect(response.body, path).not.toContain('"name": "toolgate"');
      expect(response.body, path).not.toContain('serveStatic');
      expect(response.body, path).not.toContain(gate.token);
    }
  });

  it('survives malformed request targets and keeps serving', async () => {
    const badEscape = await rawRequest({ port: gate.running.port, path: '/%E0%A4%A' });
    expect(badEscape.status).toBe(400);
    const badTarget = await rawRequest({ port: gate.running.port, path: 'http://[::1' });
    expect(badTarget.status).toBe(400);
    const post = await rawRequest({ port: gate.running.port, path: '/index.html', method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect((await rawRequest({ port: gate.running.port, path: '/' })).status).toBe(200);
  });
});
