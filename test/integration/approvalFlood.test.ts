import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { connectMcp, makeTempDirs, readToken, textOf, type TempDirs } from './helpers';
import { stepsOfAll } from '../../shared/auditSteps';
import { WAIT_MS } from '../fixtures/processes';

let running: RunningGate | undefined;
let dirs: TempDirs | undefined;
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  await running?.close();
  dirs?.remove();
  running = undefined;
  dirs = undefined;
});

/**
 * A gate with small prompt caps, so a flood reaches them quickly. Its prompts outlast any test, however
 * slow the machine: one that expired would leave the caps and be counted as refused at once.
 */
async function startCappedGate(caps: { maxPendingPerSession: number; maxPending: number }): Promise<{ gate: RunningGate; agent: () => Promise<Client> }> {
  dirs = makeTempDirs();
  running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: 10 * 60_000, poolSize: 1, ...caps });
  const gate = running;
  const token = readToken(dirs.home);
  return {
    gate,
    agent: async () => {
      const client = await connectMcp(gate.mcpUrl, token);
      clients.push(client);
      return client;
    },
  };
}

/** The MCP session id the gate issued to this client. */
function sessionOf(client: Client): string {
  const sessionId = (client.transport as StreamableHTTPClientTransport | undefined)?.sessionId;
  if (!sessionId) throw new Error('the client has no session id');
  return sessionId;
}

/** Fires `count` writes that each need a person; resolves with the ones answered at once (EQUOTA) and the ones still waiting. */
async function floodWrites(client: Client, gate: RunningGate, count: number, prefix: string) {
  const results = Array.from({ length: count }, (_, n) =>
    client.callTool({ name: 'write_file', arguments: { path: `${prefix}-${n}.txt`, content: 'x' } }) as Promise<CallToolResult>,
  );
  const settled: CallToolResult[] = [];
  // Calls still waiting when the test ends fail as their client closes: that is expected.
  for (const result of results) void result.then((value) => settled.push(value), () => {});
  // Wait until every call either holds a prompt or came back.
  const session = sessionOf(client);
  await expect
    .poll(async () => settled.length + (await gate.backend.handlers.listApprovals({})).filter((p) => p.agentSession === session).length, { timeout: WAIT_MS })
    .toBe(count);
  return { refusedAtOnce: [...settled], all: results };
}

function errorCodeOf(result: CallToolResult): unknown {
  return result._meta?.['toolgate/errorCode'];
}

describe('a flood of prompts', () => {
  it('refuses prompts past the per-session and gate-wide caps at once with EQUOTA, and keeps serving every agent', async () => {
    const { gate, agent } = await startCappedGate({ maxPendingPerSession: 4, maxPending: 10 });
    const flooder = await agent();
    const first = await floodWrites(flooder, gate, 7, 'a');
    expect(first.refusedAtOnce).toHaveLength(3);
    for (const refused of first.refusedAtOnce) {
      expect(refused.isError).toBe(true);
      expect(errorCodeOf(refused)).toBe('EQUOTA');
      expect(textOf(refused)).toMatch(/already has 4 prompts waiting for a person \(at most 4 per session\); the person must answer or deny some/);
    }
    // A second and a third agent: the second fits, the third meets the gate-wide cap.
    const second = await agent();
    expect((await floodWrites(second, gate, 4, 'b')).refusedAtOnce).toHaveLength(0);
    const third = await agent();
    const late = await floodWrites(third, gate, 4, 'c');
    expect(late.refusedAtOnce).toHaveLength(2);
    for (const refused of late.refusedAtOnce) expect(textOf(refused)).toMatch(/10 prompts from all agents are already waiting for a person \(at most 10 in all\)/);
    // Every refusal is audited as its own rejected call.
    const rejected = stepsOfAll(gate.gate.audit.list({ limit: 500 })).filter((record) => record.kind === 'rejected');
    expect(rejected.filter((record) => (record.payload as { error: { code: string } }).error.code === 'EQUOTA')).toHaveLength(5);
    // Calls that need no person still run for everyone, the flooder included.
    expect(textOf(await third.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe('{"text":"still here"}');
    expect(textOf(await flooder.callTool({ name: 'echo', arguments: { text: 'me too' } }))).toBe('{"text":"me too"}');
  });

  it('"Deny all from this agent" denies every prompt of that session, leaves the others, and makes room again', async () => {
    const { gate, agent } = await startCappedGate({ maxPendingPerSession: 5, maxPending: 8 });
    const flooder = await agent();
    const other = await agent();
    const flood = await floodWrites(flooder, gate, 5, 'f');
    const kept = await floodWrites(other, gate, 3, 'k');
    const pending = await gate.backend.handlers.listApprovals({});
    expect(new Set(pending.map((p) => p.agentSession))).toEqual(new Set([sessionOf(flooder), sessionOf(other)]));
    // Full: a new agent is refused at once.
    const newcomer = await agent();
    expect(errorCodeOf((await newcomer.callTool({ name: 'write_file', arguments: { path: 'n.txt', content: 'x' } })) as CallToolResult)).toBe('EQUOTA');

    const { denied } = await gate.backend.handlers.denyAllFromAgent({ agentSession: sessionOf(flooder), reason: 'stop flooding' });
    expect(denied).toBe(5);
    for (const result of await Promise.all(flood.all)) {
      expect(errorCodeOf(result)).toBe('EDENIED');
      expect(textOf(result)).toContain('a person denied it: stop flooding');
    }
    const left = await gate.backend.handlers.listApprovals({});
    expect(left).toHaveLength(3);
    expect(left.every((p) => p.agentSession === sessionOf(other))).toBe(true);
    expect(kept.refusedAtOnce).toHaveLength(0);
    // Room again: the newcomer's next write waits for a person instead of being refused.
    const waiting = newcomer.callTool({ name: 'write_file', arguments: { path: 'n2.txt', content: 'x' } });
    await expect.poll(async () => (await gate.backend.handlers.listApprovals({})).length, { timeout: WAIT_MS }).toBe(4);
    const newcomerPrompt = (await gate.backend.handlers.listApprovals({})).find((p) => p.agentSession === sessionOf(newcomer))!;
    await gate.backend.handlers.decideApproval({ approvalId: newcomerPrompt.approvalId, decision: 'approve' });
    expect(((await waiting) as CallToolResult).isError).toBe(false);
  });

  it('a prompt reaches the console with its arguments bounded, and approving it still runs every byte', async () => {
    const { gate, agent } = await startCappedGate({ maxPendingPerSession: 5, maxPending: 10 });
    const writer = await agent();
    const content = 'line of text\n'.repeat(40_000);
    const shown: string[] = [];
    gate.backend.subscribe('approvalRequested', (request) => shown.push(JSON.stringify(request.arguments)));
    const written = writer.callTool({ name: 'write_file', arguments: { path: 'big.txt', content } });
    await expect.poll(() => shown.length, { timeout: WAIT_MS }).toBe(1);
    const [prompt] = await gate.backend.handlers.listApprovals({});
    expect(shown[0]!.length).toBeLessThan(4096);
    expect(prompt!.arguments).toMatchObject({ path: 'big.txt', content: { 'toolgate/truncated': expect.any(String), chars: content.length } });
    await gate.backend.handlers.decideApproval({ approvalId: prompt!.approvalId, decision: 'approve' });
    expect(((await written) as CallToolResult).isError).toBe(false);
    expect(readFileSync(join(dirs!.workspace, 'big.txt'), 'utf8')).toBe(content);
  });
});
