/**
 * A 2025 session's plain tools/call is answered by the gate itself (main/mcp/directToolCall.ts), as
 * the one JSON object MCP allows (an SSE stream when a notification goes first); anything the SDK's
 * transport would question goes to the SDK. What an agent reads must not depend on which of the two
 * answered: the same result for the same call, the same refusals for requests the transport refuses,
 * and a cancel that withdraws the call either way.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalOutcome } from '../../shared/approval';
import { connectMcp, nextApproval, rawRequest, startTestGate, type RawResponse, type TestGate } from './helpers';
import { waitUntil } from '../fixtures/processes';

let gate: TestGate | undefined;

afterEach(async () => {
  await gate?.close();
  gate = undefined;
});

/** A raw 2025 session (initialize, then initialized): its id and how to POST to it with headers of one's own. */
async function rawSession(started: TestGate) {
  const port = started.running.port;
  const base = { authorization: `Bearer ${started.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await rawRequest({
    port,
    path: '/mcp',
    method: 'POST',
    headers: base,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-agent', version: '1' } } }),
  });
  const session = String(init.headers['mcp-session-id']);
  const headers = { ...base, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
  const post = (body: unknown, override: Record<string, string> = {}): Promise<RawResponse> =>
    rawRequest({ port, path: '/mcp', method: 'POST', headers: { ...headers, ...override }, body: JSON.stringify(body) });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { session, post };
}

/** The JSON-RPC messages of an SSE answer, in order. */
function events(response: RawResponse): Array<Record<string, unknown>> {
  return response.body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
}

/** A call's result without what differs between two runs of it (its call id, hash and duration). */
function comparable(message: Record<string, unknown>): unknown {
  const { result, ...rest } = message as { result: { _meta?: Record<string, unknown> } };
  const { _meta: meta, ...body } = result;
  return { ...rest, result: body, metaKeys: Object.keys(meta ?? {}).sort() };
}

const echoCall = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'same either way' } } });

describe('a tools/call answered directly by the gate', () => {
  it('gets the answer the SDK gives the same call, as the one JSON object MCP allows when nothing goes ahead of it', async () => {
    gate = await startTestGate();
    const { session, post } = await rawSession(gate);
    const direct = await post(echoCall(7));
    // A batch of one is the SDK transport's to answer.
    const throughSdk = await post([echoCall(8)]);
    for (const answer of [direct, throughSdk]) {
      expect(answer.status).toBe(200);
      expect(answer.headers['mcp-session-id']).toBe(session);
    }
    expect(direct.headers['content-type']).toBe('application/json');
    expect(throughSdk.headers['content-type']).toBe('text/event-stream');
    const directMessage = JSON.parse(direct.body) as Record<string, unknown>;
    const [sdkMessage] = events(throughSdk);
    expect(directMessage).toMatchObject({ jsonrpc: '2.0', id: 7, result: { isError: false, structuredContent: { text: 'same either way' } } });
    expect(comparable(directMessage!)).toEqual({ ...(comparable(sdkMessage!) as object), id: 7 });
    // Both calls ran through the whole pipeline: each has its own audited record.
    const ids = [directMessage, sdkMessage].map((message) => (message!.result as { _meta: Record<string, string> })._meta['toolgate/callId']!);
    for (const callId of ids) expect(gate.running.gate.audit.forCall(callId).at(-1)).toMatchObject({ kind: 'completed' });
  });

  it('answers an unknown tool with the same protocol error as the SDK', async () => {
    gate = await startTestGate();
    const { post } = await rawSession(gate);
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
    const direct = JSON.parse((await post(call(1))).body) as Record<string, unknown>;
    const [throughSdk] = events(await post([call(2)]));
    expect(direct).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: expect.stringContaining('no_such_tool') } });
    // The same error but for its id and the call id each refusal was audited under.
    const withoutCallId = (message: Record<string, unknown> | undefined) => {
      const { error, ...rest } = message as { error: { data: Record<string, unknown> } };
      const { 'toolgate/callId': callId, ...data } = error.data;
      expect(callId).toEqual(expect.any(String));
      return { ...rest, id: 0, error: { ...error, data } };
    };
    expect(withoutCallId(direct)).toEqual(withoutCallId(throughSdk));
  });

  it('leaves to the SDK every request its transport refuses, which is refused as before and runs nothing', async () => {
    gate = await startTestGate();
    const { post } = await rawSession(gate);
    const write = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'write_file', arguments: { path: 'never.txt', content: 'x' } } });
    const refusals: Array<[string, Promise<RawResponse>, number]> = [
      ['a body that is not JSON by its type', post(write(1), { 'content-type': 'text/plain' }), 415],
      ['an agent that cannot read SSE', post(write(2), { accept: 'application/json' }), 406],
      ['a protocol version the gate does not speak', post(write(3), { 'mcp-protocol-version': '1999-01-01' }), 400],
      ['a request id that is not an integer', post(write(1.5)), 400],
    ];
    for (const [what, answer, status] of refusals) {
      const response = await answer;
      expect({ what, status: response.status }).toEqual({ what, status });
    }
    expect(existsSync(join(gate.dirs.workspace, 'never.txt'))).toBe(false);
    expect(JSON.stringify(gate.running.gate.audit.list({ limit: 1000 }))).not.toContain('never.txt');
  });

  it('is withdrawn by the agent’s own cancel while it waits for a person, and never runs', async () => {
    gate = await startTestGate({ approvalTimeoutMs: 10 * 60_000 });
    const started = gate;
    const client = await connectMcp(started.running.mcpUrl, started.token);
    try {
      const prompt = nextApproval(started.running.backend);
      const resolved = new Promise<ApprovalOutcome>((resolve) => started.running.backend.subscribe('approvalResolved', resolve));
      const controller = new AbortController();
      const call = client.callTool({ name: 'write_file', arguments: { path: 'cancelled.txt', content: 'x' } }, undefined, { signal: controller.signal });
      const request = await prompt;
      controller.abort('the agent changed its mind');
      await expect(call).rejects.toThrow();
      expect(await resolved).toMatchObject({ approvalId: request.approvalId, outcome: 'withdrawn' });
      expect(await started.running.backend.handlers.listApprovals({})).toEqual([]);
      const ended = () => started.running.gate.audit.forCall(request.callId).some((record) => record.kind === 'rejected');
      await waitUntil(ended, 'the withdrawn call to be audited as rejected');
      const records = started.running.gate.audit.forCall(request.callId);
      expect(records.at(-1)).toMatchObject({ kind: 'rejected' });
      expect(records.some((record) => record.kind === 'started')).toBe(false);
      expect(existsSync(join(started.dirs.workspace, 'cancelled.txt'))).toBe(false);
    } finally {
      await client.close();
    }
  });
});

describe('a request the gate cannot tell apart or cannot name a tool from', () => {
  it('is refused with what to send, and runs nothing: a tools/call without params or a name, a batch with one id twice', async () => {
    gate = await startTestGate();
    const { post } = await rawSession(gate);
    const callsBefore = gate.running.gate.calls.list().length;
    for (const body of [
      { jsonrpc: '2.0', id: 1, method: 'tools/call' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { arguments: { text: 'x' } } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 7 } },
    ]) {
      const refused = await post(body);
      expect(refused.status, refused.body).toBe(400);
      expect(JSON.parse(refused.body)).toMatchObject({ error: { code: -32600, message: expect.stringContaining('a tools/call needs "params" with the tool\'s "name"') } });
    }
    const twice = await post([echoCall(9), echoCall(9)]);
    expect(twice.status, twice.body).toBe(400);
    expect(JSON.parse(twice.body)).toMatchObject({ error: { code: -32600, message: expect.stringContaining('two requests with id 9') } });
    expect(gate.running.gate.calls.list().length).toBe(callsBefore);

    // Ids of their own: both run and both are answered.
    const both = await post([echoCall(10), echoCall(11)]);
    expect(events(both).map((message) => message.id).sort()).toEqual([10, 11]);
  });
});
