/**
 * A call of a tool the gate does not have is a protocol error, as the MCP spec lists it: a JSON-RPC
 * error with code -32602 (invalid params), never a tool result a client could read as a tool that
 * ran. Its message names the gate's tools so a model can correct itself, and the attempt is audited
 * as rejected (ENOTFOUND). Both protocol eras and the stdio bridge answer alike.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../shared/audit';
import { connectMcp, connectStdioBridge, startTestGate, type TestGate } from './helpers';
import { connectModernMcp } from './modernClient';

let gate: TestGate | undefined;
const clients: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  await gate?.close();
  gate = undefined;
});

/** What a refused call threw at the agent: its JSON-RPC code, message and data. */
async function refusal(call: Promise<unknown>): Promise<{ code: number; message: string; data: Record<string, unknown> }> {
  const outcome = await call.then(
    (result) => ({ answered: result }),
    (error: { code: number; message: string; data?: Record<string, unknown> }) => error,
  );
  if ('answered' in outcome) throw new Error(`the unknown tool was answered with a result: ${JSON.stringify(outcome.answered)}`);
  return { code: outcome.code, message: outcome.message, data: outcome.data ?? {} };
}

/** The names the agent's tools/list gives, each of which the refusal must name. */
async function expectRefusedNamingTools(started: TestGate, refused: { code: number; message: string; data: Record<string, unknown> }, listed: string[]) {
  expect(refused.code).toBe(-32602);
  expect(refused.message).toContain('ENOTFOUND: no tool named "delete_everything"; the tools are: ');
  for (const name of listed) expect(refused.message).toContain(name);
  // The message reaches the agent once, not wrapped in another error's prefix.
  expect(refused.message.match(/MCP error/g)?.length ?? 0).toBeLessThanOrEqual(1);
  const records: AuditRecord[] = started.running.gate.audit.forCall(refused.data['toolgate/callId'] as string);
  expect(records.map((record) => record.kind)).toEqual(['invoked', 'rejected']);
  expect(records[1]!.payload).toMatchObject({ step: 'lookup', error: { code: 'ENOTFOUND' } });
}

describe('a call of an unknown tool', () => {
  it('a 2025 session gets a JSON-RPC invalid-params error naming the tools; the call is audited as rejected', async () => {
    gate = await startTestGate();
    const client = await connectMcp(gate.running.mcpUrl, gate.token);
    clients.push(client);
    const listed = (await client.listTools()).tools.map((tool) => tool.name);
    const refused = await refusal(client.callTool({ name: 'delete_everything', arguments: { path: '/' } }));
    await expectRefusedNamingTools(gate, refused, listed);
  });

  it('a 2026-07-28 agent gets the same JSON-RPC error', async () => {
    gate = await startTestGate();
    const client = await connectModernMcp(gate.running.mcpUrl, gate.token);
    clients.push(client);
    expect(client.getProtocolEra()).toBe('modern');
    const listed = (await client.listTools()).tools.map((tool) => tool.name);
    const refused = await refusal(client.callTool({ name: 'delete_everything', arguments: { path: '/' } }));
    await expectRefusedNamingTools(gate, refused, listed);
  });

  it('an agent behind the stdio bridge gets the same JSON-RPC error, passed on as the gate sent it', async () => {
    gate = await startTestGate();
    const client: Client = await connectStdioBridge(gate.dirs.home);
    clients.push(client);
    const listed = (await client.listTools()).tools.map((tool) => tool.name);
    const refused = await refusal(client.callTool({ name: 'delete_everything', arguments: { path: '/' } }));
    await expectRefusedNamingTools(gate, refused, listed);
  });
});
