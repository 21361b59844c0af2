/**
 * Approval is the person's alone: the agents' MCP token opens /mcp and nothing else, the console
 * token opens /bridge and nothing else. An agent that holds its own token (and spoofs the console's
 * Origin, as any non-browser client can) still cannot answer the prompt its own call raised.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type WebSocket from 'ws';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../shared/audit';
import { startGate } from '../../main/gate/startGate';
import { BridgeClient, connectMcp, makeTempDirs, openBridgeSocket, rawRequest, readToken, startTestGate, textOf, type TestGate } from './helpers';
import { stepsOfAll } from '../../shared/auditSteps';
import { WAIT_MS } from '../fixtures/processes';

let gate: TestGate;
const cleanups: Array<() => unknown> = [];

beforeEach(async () => {
  gate = await startTestGate();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await gate?.close();
});

function consoleOrigin(): string {
  return `http://127.0.0.1:${gate.running.port}`;
}

async function openAgent(): Promise<Client> {
  const client = await connectMcp(gate.running.mcpUrl, gate.token);
  cleanups.push(() => client.close());
  return client;
}

async function openConsole(): Promise<BridgeClient> {
  const bridge = await BridgeClient.open(gate.running.port, gate.consoleToken);
  cleanups.push(() => bridge.close());
  return bridge;
}

/** The door refusals in the audit log for one surface, oldest first. */
function refusalsOn(surface: 'mcp' | 'console'): Array<{ step: string; error: { code: string; message: string } }> {
  return stepsOfAll(gate.running.gate.audit.list({ limit: 1000 }))
    .filter((record: AuditRecord) => record.kind === 'rejected' && (record.payload as { surface?: string }).surface === surface)
    .map((record) => record.payload as { step: string; error: { code: string; message: string } })
    .reverse();
}

/**
 * An agent's own attempt at the console: its MCP token as the bridge subprotocol, the console's
 * Origin forged. Resolves with how the socket ended and the replies it got, if it ever got any.
 */
function agentAtTheConsole(token: string): Promise<{ closeCode: number; reason: string; replies: unknown[] }> {
  const ws: WebSocket = openBridgeSocket(gate.running.port, ['toolgate.v1', `toolgate.token.${token}`], consoleOrigin());
  cleanups.push(() => ws.terminate());
  const replies: unknown[] = [];
  return new Promise((resolve) => {
    ws.on('open', () => {
      // What it would do with an open bridge: find its own prompt and approve it.
      ws.send(JSON.stringify({ id: 1, method: 'listApprovals', params: {} }));
    });
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { type: string; id?: number; reply?: { ok: boolean; value?: Array<{ approvalId: string }> } };
      replies.push(message);
      const pending = message.type === 'reply' && message.id === 1 ? message.reply?.value?.[0] : undefined;
      if (pending) ws.send(JSON.stringify({ id: 2, method: 'decideApproval', params: { approvalId: pending.approvalId, decision: 'approve' } }));
    });
    // A bridge that stays open (the agent got in) ends the attempt after WAIT_MS with code 0: a refusal
    // comes long before, however busy the machine.
    const timer = setTimeout(() => resolve({ closeCode: 0, reason: 'still open', replies }), WAIT_MS);
    ws.on('close', (closeCode, reason) => {
      clearTimeout(timer);
      resolve({ closeCode, reason: reason.toString(), replies });
    });
  });
}

describe('two credentials', () => {
  it('keeps the agents’ token and the console token apart, each in a file only its owner can read', () => {
    const { home } = gate.dirs;
    expect(gate.consoleToken).toMatch(/^[0-9a-f]{64}$/);
    expect(gate.consoleToken).not.toBe(gate.token);
    for (const file of ['token', 'console-token']) expect(statSync(join(home, file)).mode & 0o777, file).toBe(0o600);
    // The console URL carries the console token, never the agents' one.
    expect(gate.running.consoleUrl).toBe(`${consoleOrigin()}/#token=${gate.consoleToken}`);
    // gate.json is what `toolgate mcp` and `toolgate call` read to find the gate: it holds no token at all.
    const address = readFileSync(join(home, 'gate.json'), 'utf8');
    expect(address).not.toContain(gate.token);
    expect(address).not.toContain(gate.consoleToken);
  });

  it('refuses a copied console-token file that equals the agents’ token, and makes a fresh one', async () => {
    const { home } = gate.dirs;
    await gate.running.close();
    const agentToken = gate.token;
    writeFileSync(join(home, 'console-token'), `${agentToken}\n`, { mode: 0o600 });
    const again = await startGate({ home, workspace: gate.dirs.workspace, port: 0, poolSize: 1 });
    cleanups.push(() => again.close());
    const fresh = readFileSync(join(home, 'console-token'), 'utf8').trim();
    expect(fresh).toMatch(/^[0-9a-f]{64}$/);
    expect(fresh).not.toBe(agentToken);
    expect(again.consoleUrl).toContain(`#token=${fresh}`);
  });
});

describe('a gate without a browser console (the desktop shell)', () => {
  it('makes no console token and opens /bridge for nobody, the agents’ token included; MCP still works', async () => {
    const dirs = makeTempDirs();
    const desktop = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, poolSize: 1, browserConsole: false });
    cleanups.push(() => dirs.remove());
    cleanups.push(() => desktop.close());
    expect(existsSync(join(dirs.home, 'console-token'))).toBe(false);
    expect(desktop.consoleUrl).toBe(`http://127.0.0.1:${desktop.port}/`);
    const agentToken = readToken(dirs.home);
    const ws = openBridgeSocket(desktop.port, ['toolgate.v1', `toolgate.token.${agentToken}`], `http://127.0.0.1:${desktop.port}`);
    cleanups.push(() => ws.terminate());
    const closed = await new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    expect(closed).toEqual({ code: 4401, reason: expect.stringContaining('desktop window') });
    const agent = await connectMcp(desktop.mcpUrl, agentToken);
    cleanups.push(() => agent.close());
    expect(textOf(await agent.callTool({ name: 'echo', arguments: { text: 'desktop agents served' } }))).toContain('desktop agents served');
  });
});

describe('the agents’ token on the console', () => {
  it('cannot open /bridge: refused with 4401, audited as a refusal, and the gate keeps serving', async () => {
    const attempt = await agentAtTheConsole(gate.token);
    expect(attempt.closeCode).toBe(4401);
    expect(attempt.reason).toContain('MCP token does not open the console');
    expect(attempt.replies).toEqual([]);
    const refusals = refusalsOn('console');
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ step: 'auth', error: { code: 'EPERMISSION', message: expect.stringContaining('MCP token does not open the console') } });
    expect(JSON.stringify(gate.running.gate.audit.list({ limit: 1000 }))).not.toContain(gate.token);

    // The person's console and the agent's MCP session both still work.
    const bridge = await openConsole();
    expect(await bridge.request('getInfo', {})).toMatchObject({ ok: true });
    const agent = await openAgent();
    expect(textOf(await agent.callTool({ name: 'echo', arguments: { text: 'still serving' } }))).toContain('still serving');
  });

  it('cannot decide the agent’s own pending call: the call waits for the person, who denies it', async () => {
    const agent = await openAgent();
    const bridge = await openConsole();
    const pending = agent.callTool({ name: 'write_file', arguments: { path: 'self-approved.txt', content: 'pwned\n' } });
    const prompt = await bridge.waitForEvent('approvalRequested', (request) => request.tool === 'write_file');

    const attempt = await agentAtTheConsole(gate.token);
    expect(attempt.closeCode).toBe(4401);
    expect(attempt.replies).toEqual([]);
    // The MCP surface offers no way to answer prompts either: tools only, and no approval method.
    const tools = (await agent.listTools()).tools.map((tool) => tool.name);
    expect(tools.filter((name) => /approv|decide|console/i.test(name))).toEqual([]);
    await expect(
      agent.request({ method: 'approvals/decide', params: { approvalId: prompt.approvalId, decision: 'approve' } }, EmptyResultSchema),
    ).rejects.toThrow(/Method not found/);

    // The prompt is still there, unanswered, and nothing was written.
    const listed = (await bridge.request('listApprovals', {})) as { ok: true; value: Array<{ approvalId: string }> };
    expect(listed.value.map((request) => request.approvalId)).toContain(prompt.approvalId);
    expect(existsSync(join(gate.running.gate.workspace, 'self-approved.txt'))).toBe(false);

    expect(await bridge.request('decideApproval', { approvalId: prompt.approvalId, decision: 'deny', reason: 'not yours to approve' })).toMatchObject({
      ok: true,
      value: { outcome: 'denied' },
    });
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('EDENIED');
    expect(existsSync(join(gate.running.gate.workspace, 'self-approved.txt'))).toBe(false);
  });
});

describe('the console token on MCP', () => {
  it('cannot open /mcp: 401 naming the right token, audited, and the gate keeps serving', async () => {
    await expect(connectMcp(gate.running.mcpUrl, gate.consoleToken)).rejects.toThrow();
    const raw = await rawRequest({
      port: gate.running.port,
      path: '/mcp',
      method: 'POST',
      headers: {
        authorization: `Bearer ${gate.consoleToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(raw.status).toBe(401);
    expect(JSON.parse(raw.body).error.message).toMatch(/console token does not open \/mcp.*\$TOOLGATE_HOME\/token/);
    const refusals = refusalsOn('mcp');
    expect(refusals.length).toBeGreaterThanOrEqual(2);
    for (const refusal of refusals) expect(refusal).toMatchObject({ step: 'auth', error: { code: 'EPERMISSION', message: expect.stringContaining('console token') } });
    expect(JSON.stringify(gate.running.gate.audit.list({ limit: 1000 }))).not.toContain(gate.consoleToken);

    const agent = await openAgent();
    expect(textOf(await agent.callTool({ name: 'echo', arguments: { text: 'agents still served' } }))).toContain('agents still served');
  });
});
