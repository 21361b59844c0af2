import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nestedArrays } from '../fixtures/nestedJson';
import { connectMcp, nextApproval, rawRequest, startTestGate, textOf, type TestGate } from './helpers';
import { stepsOfAll } from '../../shared/auditSteps';

let gate: TestGate | undefined;
afterEach(async () => {
  await gate?.close();
  gate = undefined;
});

describe('an agent that tries to hurt the gate', () => {
  it('deeply nested arguments are refused and audited, and the gate and its console keep working', async () => {
    gate = await startTestGate();
    const client = await connectMcp(gate.running.mcpUrl, gate.token);
    await expect(client.callTool({ name: 'list_dir', arguments: { path: nestedArrays(500) } })).rejects.toThrow(/nests deeper than/);
    // Deeper than any client would serialize: sent as raw text.
    const depth = 100_000;
    const raw = await rawRequest({
      port: gate.running.port,
      path: '/mcp',
      method: 'POST',
      headers: { authorization: `Bearer ${gate.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_dir","arguments":{"path":${'['.repeat(depth)}${']'.repeat(depth)}}}}`,
    });
    expect(raw.status).toBe(400);
    const refusals = stepsOfAll(gate.running.gate.audit.list({ limit: 10 })).filter((record) => record.kind === 'rejected');
    expect(refusals.map((record) => record.payload)).toEqual([
      expect.objectContaining({ step: 'parse', error: expect.objectContaining({ code: 'EVALIDATION' }) }),
      expect.objectContaining({ step: 'parse', error: expect.objectContaining({ code: 'EVALIDATION' }) }),
    ]);
    // What used to crash the gate: the console listing the calls afterwards.
    await expect(gate.running.backend.handlers.listCalls({})).resolves.toBeInstanceOf(Array);
    const after = await client.callTool({ name: 'echo', arguments: { text: 'alive' } });
    expect(textOf(after)).toBe('{"text":"alive"}');
  });

  it('a call the agent gives up on (its request timeout) takes its prompt back, so a late approval changes nothing', async () => {
    gate = await startTestGate();
    const client = await connectMcp(gate.running.mcpUrl, gate.token);
    const prompt = nextApproval(gate.running.backend);
    const withdrawn = new Promise((resolveOutcome) => gate!.running.backend.subscribe('approvalResolved', resolveOutcome));
    const call = client.callTool({ name: 'write_file', arguments: { path: 'late.txt', content: 'late' } }, undefined, { timeout: 500 });
    // The agent may give up before or after the prompt shows: either way its rejection is expected.
    const gaveUp = expect(call).rejects.toThrow(/timed out/i);
    const request = await prompt;
    await gaveUp;
    await expect(withdrawn).resolves.toMatchObject({ approvalId: request.approvalId, outcome: 'withdrawn' });
    expect(await gate.running.backend.handlers.listApprovals({})).toEqual([]);
    await expect(gate.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' })).rejects.toThrow(
      /no longer waiting/,
    );
    expect(existsSync(join(gate.dirs.workspace, 'late.txt'))).toBe(false);
  });
});
