/**
 * The door of /mcp for MCP 2026-07-28 requests, sent raw as such a client sends them: the bearer
 * token is required as for any agent, and a body over the gate's bounds, malformed or flooding is
 * refused with a clear JSON-RPC error and audited before any call is made, as a 2025 session's is.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { auditKinds, callIdOf, rawRequest, startTestGate, type TestGate } from './helpers';
import { connectModernMcp } from './modernClient';
import { stepsOfAll } from '../../shared/auditSteps';

let gate: TestGate | undefined;

afterEach(async () => {
  await gate?.close();
  gate = undefined;
});

async function open(): Promise<TestGate> {
  gate = await startTestGate();
  return gate;
}

/** A tools/call of echo as a 2026-07-28 client sends it: the envelope in `_meta`, the method and name in headers. */
function modernEcho(text: string, meta: Record<string, unknown> = {}) {
  return {
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: {
      name: 'echo',
      arguments: { text },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw-agent', version: '0.1' },
        'io.modelcontextprotocol/clientCapabilities': {},
        ...meta,
      },
    },
  };
}

const MODERN_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'echo',
};

/** The JSON-RPC answer in a 2026-07-28 call's answer stream (SSE: the gate always streams, see modernEndpoint). */
function answerIn(body: string): { result: Record<string, any> } {
  const answer = body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { id?: unknown; result: Record<string, any> })
    .find((message) => message.id !== undefined);
  if (!answer) throw new Error(`no JSON-RPC answer in: ${body.slice(0, 300)}`);
  return answer;
}

function post(body: string, headers: Record<string, string>) {
  return rawRequest({ port: gate!.running.port, path: '/mcp', method: 'POST', headers: { ...MODERN_HEADERS, ...headers }, body });
}

/** The requests refused at the door (no call was made), as the audit recorded them, oldest first. */
function doorRefusals(): Array<{ step: string; error: { message: string } }> {
  return stepsOfAll(gate!.running.gate.audit.list({ limit: 200 }))
    .filter((record) => record.kind === 'rejected' && 'surface' in (record.payload as object))
    .map((record) => record.payload as { step: string; error: { message: string } })
    .reverse();
}

describe('the door for 2026-07-28 requests', () => {
  it('a raw 2026-07-28 request with the token is answered; without it, 401 and audited', async () => {
    await open();
    const answered = await post(JSON.stringify(modernEcho('raw')), { authorization: `Bearer ${gate!.token}` });
    expect(answered.status).toBe(200);
    expect(answered.headers['content-type']).toMatch(/^text\/event-stream/);
    const result = answerIn(answered.body);
    expect(result.result).toMatchObject({ isError: false, structuredContent: { text: 'raw' } });
    const [invoked] = gate!.running.gate.audit.forCall(callIdOf(result.result));
    expect(invoked!.payload).toMatchObject({ agent: { client: 'raw-agent', version: '0.1' } });

    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer not-the-token' }, { authorization: `Bearer ${gate!.consoleToken}` }]) {
      const refused = await post(JSON.stringify(modernEcho('no token')), headers);
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toBe('Bearer realm="toolgate"');
      expect(JSON.parse(refused.body).error.message).toMatch(/bearer token|console token does not open \/mcp/);
    }
    expect(doorRefusals().map((refusal) => refusal.step)).toEqual(['auth', 'auth', 'auth']);
  });

  it('an oversize, malformed or flooding body is refused with a clear error and audited, and the gate goes on serving', async () => {
    await open();
    const auth = { authorization: `Bearer ${gate!.token}` };
    // Past the bound the gate stops reading and drops the connection: the client sees the 413 or a reset.
    const oversize = await post(JSON.stringify(modernEcho('x'.repeat(9 * 1024 * 1024))), auth).catch((error: NodeJS.ErrnoException) => ({ reset: error.code }));
    if ('status' in oversize) {
      expect(oversize.status).toBe(413);
      expect(JSON.parse(oversize.body).error).toMatchObject({ code: -32600, message: 'the request body is over 8388608 bytes' });
    } else expect(oversize.reset).toMatch(/^(ECONNRESET|EPIPE)$/);

    // Within the bytes but too costly to parse: refused unread, with what to do instead.
    const costly = await post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"items":[${'0,'.repeat(4_000_000)}0]}}}`, auth);
    expect(costly.status).toBe(413);
    expect(JSON.parse(costly.body).error.message).toMatch(/holds too many values to read .*send less, or split the work over several calls/);

    const malformed = await post('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":', auth);
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body).error).toMatchObject({ code: -32700, message: expect.stringMatching(/^parse error: the request body is not valid JSON/) });

    // An envelope of 12000 keys (the bound is 10000 per object): the arguments may be large (the pipeline refuses them), the envelope may not.
    const flood = Object.fromEntries(Array.from({ length: 12_000 }, (_, index) => [`k${index}`, index]));
    const flooding = await post(JSON.stringify(modernEcho('flood', flood)), auth);
    expect(flooding.status).toBe(400);
    expect(JSON.parse(flooding.body).error.message).toMatch(/^the request's envelope \(everything but the arguments\) breaks a bound/);

    expect(doorRefusals().map((refusal) => refusal.step)).toEqual(['parse', 'parse', 'parse', 'parse']);
    expect(doorRefusals()[0]!.error.message).toBe('the request body is over 8388608 bytes');

    // Arguments over the bounds pass the door and are refused by the pipeline, audited as a call.
    const wide = Object.fromEntries(Array.from({ length: 12_000 }, (_, index) => [`k${index}`, index]));
    const heldBack = answerIn((await post(JSON.stringify({ ...modernEcho(''), params: { ...modernEcho('').params, arguments: wide } }), auth)).body);
    expect(heldBack.result.isError).toBe(true);
    expect(heldBack.result.content[0].text).toMatch(/^EVALIDATION/);
    expect(auditKinds(gate!.running.gate.audit.forCall(callIdOf(heldBack.result)))).toEqual(['invoked', 'rejected']);

    const modern = await connectModernMcp(gate!.running.mcpUrl, gate!.token);
    expect(modern.getProtocolEra()).toBe('modern');
    expect((await modern.callTool({ name: 'echo', arguments: { text: 'still here' } })).structuredContent).toEqual({ text: 'still here' });
    await modern.close();
  });
});
