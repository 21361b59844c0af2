/**
 * The console's WebSocket bridge as a browser page would use it: the token in a subprotocol, the
 * Origin of the console itself, requests validated against the contract, and live events.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type WebSocket from 'ws';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BridgeClient, connectMcp, openBridgeSocket, startTestGate, textOf, type TestGate } from './helpers';
import { WAIT_MS } from '../fixtures/processes';
import { stepsOf, stepsOfAll } from '../../shared/auditSteps';
import { GATE_TOOL_DEFINITIONS } from '../../main/tools/gateTools';

let gate: TestGate;
const cleanups: Array<() => unknown> = [];

beforeEach(async () => {
  gate = await startTestGate();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await gate?.close();
});

/** Refused console connections in the audit log, as step names, oldest first. */
function consoleRefusals(): string[] {
  return stepsOfAll(gate.running.gate.audit.list({ limit: 100 }))
    .filter((record) => record.kind === 'rejected' && (record.payload as { surface?: string }).surface === 'console')
    .map((record) => (record.payload as { step: string }).step)
    .reverse();
}

function consoleOrigin(): string {
  return `http://127.0.0.1:${gate.running.port}`;
}

async function openConsole(): Promise<BridgeClient> {
  const bridge = await BridgeClient.open(gate.running.port, gate.consoleToken);
  cleanups.push(() => bridge.close());
  return bridge;
}

async function openAgent(): Promise<Client> {
  const client = await connectMcp(gate.running.mcpUrl, gate.token);
  cleanups.push(() => client.close());
  return client;
}

/** How a socket ended: its close code, or the HTTP status that refused the handshake. */
function outcomeOf(ws: WebSocket): Promise<{ closeCode?: number; status?: number; opened: boolean }> {
  cleanups.push(() => ws.terminate());
  let opened = false;
  return new Promise((resolve) => {
    ws.on('open', () => (opened = true));
    ws.on('unexpected-response', (_request, response) => {
      resolve({ status: response.statusCode, opened });
      response.resume();
    });
    ws.on('error', () => {});
    ws.on('close', (code) => resolve({ closeCode: code, opened }));
  });
}

describe('bridge handshake', () => {
  it('closes with 4401 on a wrong or missing token', async () => {
    const wrong = await outcomeOf(openBridgeSocket(gate.running.port, ['toolgate.v1', `toolgate.token.${'0'.repeat(64)}`], consoleOrigin()));
    expect(wrong.closeCode).toBe(4401);
    const missing = await outcomeOf(openBridgeSocket(gate.running.port, ['toolgate.v1'], consoleOrigin()));
    expect(missing.closeCode).toBe(4401);
    expect(consoleRefusals()).toEqual(['auth', 'auth']);
  });

  it('refuses a foreign Origin, a missing Origin and a foreign Host before the handshake', async () => {
    const protocols = ['toolgate.v1', `toolgate.token.${gate.consoleToken}`];
    const evil = await outcomeOf(openBridgeSocket(gate.running.port, protocols, 'http://evil.example'));
    expect(evil).toMatchObject({ status: 403, opened: false });
    const none = await outcomeOf(openBridgeSocket(gate.running.port, protocols, undefined));
    expect(none).toMatchObject({ status: 403, opened: false });
    const { default: WebSocketClass } = await import('ws');
    const rebound = new WebSocketClass(`ws://127.0.0.1:${gate.running.port}/bridge`, protocols, {
      origin: consoleOrigin(),
      headers: { host: 'evil.example' },
    });
    expect(await outcomeOf(rebound)).toMatchObject({ status: 403, opened: false });
    expect(consoleRefusals()).toEqual(['origin', 'origin', 'host']);
  });

  it('answers 404 to an upgrade on another path', async () => {
    const { default: WebSocketClass } = await import('ws');
    const elsewhere = new WebSocketClass(`ws://127.0.0.1:${gate.running.port}/mcp`, ['toolgate.v1', `toolgate.token.${gate.consoleToken}`], {
      origin: consoleOrigin(),
    });
    expect(await outcomeOf(elsewhere)).toMatchObject({ status: 404, opened: false });
  });
});

describe('bridge requests', () => {
  it('getInfo answers with the workspace, and the token is not echoed back', async () => {
    const bridge = await openConsole();
    expect(bridge.ws.protocol).toBe('toolgate.v1');
    const reply = await bridge.request('getInfo', {});
    expect(reply).toMatchObject({
      ok: true,
      value: { workspace: gate.running.gate.workspace, mcpUrl: gate.running.mcpUrl, approvalTimeoutMs: WAIT_MS },
    });
    const tools = await bridge.request('listTools', {});
    if (!tools.ok) throw new Error(tools.error.message);
    // Every tool the gate serves by itself: the built-in set and the memory tools.
    expect((tools.value as Array<{ name: string }>).map((tool) => tool.name).sort()).toEqual(GATE_TOOL_DEFINITIONS.map((tool) => tool.manifest.name).sort());
  });

  it('refuses invalid params with EVALIDATION and unknown methods without calling anything', async () => {
    const bridge = await openConsole();
    const badType = await bridge.request('decideApproval', { approvalId: 5, decision: 'approve' });
    expect(badType).toMatchObject({ ok: false, error: { code: 'EVALIDATION' } });
    if (badType.ok) throw new Error('expected a refusal');
    expect(badType.error.message).toContain('approvalId');
    const badDecision = await bridge.request('decideApproval', { approvalId: 'x', decision: 'maybe' });
    expect(badDecision).toMatchObject({ ok: false, error: { code: 'EVALIDATION' } });
    const extraKey = await bridge.request('getInfo', { admin: true });
    expect(extraKey).toMatchObject({ ok: false, error: { code: 'EVALIDATION' } });
    const unknown = await bridge.request('runShell', { command: 'id' });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'EBRIDGE' } });
    const prototype = await bridge.request('constructor', {});
    expect(prototype).toMatchObject({ ok: false, error: { code: 'EBRIDGE' } });
    const stale = await bridge.request('decideApproval', { approvalId: 'not-issued', decision: 'approve' });
    expect(stale).toMatchObject({ ok: false, error: { code: 'ENOTFOUND' } });
    // The connection is still usable after refusals.
    expect(await bridge.request('listApprovals', {})).toEqual({ ok: true, value: [] });
  });

  it('closes the connection on a message that is not JSON or not a request', async () => {
    const notJson = await openConsole();
    const closedA = new Promise<number>((resolve) => notJson.ws.once('close', (code) => resolve(code)));
    notJson.ws.send('{not json');
    expect(await closedA).toBe(1007);
    const malformed = await openConsole();
    const closedB = new Promise<number>((resolve) => malformed.ws.once('close', (code) => resolve(code)));
    malformed.ws.send(JSON.stringify({ method: 'getInfo' }));
    expect(await closedB).toBe(1008);
  });
});

describe('gate diagnostics', () => {
  it("answers the gate's memory and event-loop lag, and starts a new lag window on reset", async () => {
    const bridge = await openConsole();
    const first = await bridge.request('diagnostics', { reset: true });
    expect(first).toMatchObject({ ok: true, value: { eventLoopLagMs: { p50: expect.any(Number), p99: expect.any(Number), max: expect.any(Number) } } });
    const value = (first as { value: { rssBytes: number; heapUsedBytes: number; uptimeSeconds: number } }).value;
    expect(value.rssBytes).toBeGreaterThan(value.heapUsedBytes);
    const second = (await bridge.request('diagnostics', {})) as { value: { windowSeconds: number; uptimeSeconds: number } };
    expect(second.value.windowSeconds).toBeLessThanOrEqual(second.value.uptimeSeconds + 1);
    expect(await bridge.request('diagnostics', { reset: 'yes' })).toMatchObject({ ok: false, error: { code: 'EVALIDATION' } });
  });
});

describe('bridge events', () => {
  it('pushes callUpdated and auditAppended for an agent call', async () => {
    const bridge = await openConsole();
    const agent = await openAgent();
    const result = await agent.callTool({ name: 'echo', arguments: { text: 'seen by the console' } });
    const callId = result._meta?.['toolgate/callId'];
    const completed = await bridge.waitForEvent('callUpdated', (call) => call.callId === callId && call.status === 'completed');
    expect(completed).toMatchObject({ tool: 'echo', source: 'mcp', data: { text: 'seen by the console' } });
    const audited = await bridge.waitForEvent('auditAppended', (record) => record.callId === callId && stepsOf(record).some((step) => step.kind === 'completed'));
    expect(audited.hash).toMatch(/^[0-9a-f]{64}$/);
    const verify = await bridge.request('verifyAudit', {});
    expect(verify).toMatchObject({ ok: true, value: { ok: true } });
  });

  it("sends a burst of calls in batched frames, and every call's final state arrives", async () => {
    const bridge = await openConsole();
    const frames: Array<{ type: string; events?: unknown[] }> = [];
    bridge.ws.on('message', (data) => frames.push(JSON.parse(data.toString())));
    const agent = await openAgent();
    const results = await Promise.all(Array.from({ length: 20 }, (_, index) => agent.callTool({ name: 'echo', arguments: { text: `burst ${index}` } })));
    for (const result of results) {
      const callId = result._meta?.['toolgate/callId'];
      await bridge.waitForEvent('callUpdated', (call) => call.callId === callId && call.status === 'completed');
    }
    const eventFrames = frames.filter((frame) => frame.type !== 'reply');
    expect(eventFrames.every((frame) => frame.type === 'events')).toBe(true);
    const events = eventFrames.reduce((sum, frame) => sum + (frame.events?.length ?? 0), 0);
    // Each call moves through several steps and appends several records; they travel together.
    expect(eventFrames.length).toBeLessThan(events);
  });

  it('lets the console approve a write it was shown, and the agent gets the result', async () => {
    const bridge = await openConsole();
    const agent = await openAgent();
    const call = agent.callTool({ name: 'write_file', arguments: { path: 'from-console.txt', content: 'approved in the browser\n' } });
    const prompt = await bridge.waitForEvent('approvalRequested', (request) => request.tool === 'write_file');
    expect(prompt.preview).toMatchObject({ kind: 'diff', path: 'from-console.txt', after: 'approved in the browser\n' });
    expect(existsSync(join(gate.dirs.workspace, 'from-console.txt'))).toBe(false);
    const decided = await bridge.request('decideApproval', { approvalId: prompt.approvalId, decision: 'approve' });
    expect(decided).toMatchObject({ ok: true, value: { outcome: 'approved', callId: prompt.callId } });
    const result = await call;
    expect(result.isError).toBe(false);
    expect(readFileSync(join(gate.dirs.workspace, 'from-console.txt'), 'utf8')).toBe('approved in the browser\n');
    await bridge.waitForEvent('approvalResolved', (outcome) => outcome.approvalId === prompt.approvalId);
    // Answering twice is refused.
    const again = await bridge.request('decideApproval', { approvalId: prompt.approvalId, decision: 'deny' });
    expect(again).toMatchObject({ ok: false, error: { code: 'ENOTFOUND' } });
    expect(textOf(result)).toContain('from-console.txt');
  });
});
