/**
 * write_file through MCP waits for a person: the agent's call blocks while the console sees the
 * diff, and the person's approve, deny (with a reason) or silence decides what the agent gets.
 */
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { auditKinds, callIdOf, connectMcp, nextApproval, startTestGate, textOf, type TestGate } from './helpers';

let gate: TestGate | undefined;
let client: Client | undefined;

async function open(options: { approvalTimeoutMs?: number } = {}): Promise<{ gate: TestGate; client: Client }> {
  gate = await startTestGate(options);
  client = await connectMcp(gate.running.mcpUrl, gate.token);
  return { gate, client };
}

afterEach(async () => {
  await client?.close();
  await gate?.close();
  client = undefined;
  gate = undefined;
});

/** Whether a promise is still pending after a short wait. */
async function stillPending(promise: Promise<unknown>, ms = 150): Promise<boolean> {
  const marker = Symbol('pending');
  return (await Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(marker), ms))])) === marker;
}

describe('write_file approval over MCP', () => {
  it('blocks until approved, shows the diff, then writes exactly the approved content', async () => {
    const { gate, client } = await open();
    const prompt = nextApproval(gate.running.backend);
    const call = client.callTool({ name: 'write_file', arguments: { path: 'docs/plan.md', content: 'step one\nstep two\n' } });
    const request = await prompt;
    expect(request.tool).toBe('write_file');
    expect(request.arguments).toEqual({ path: 'docs/plan.md', content: 'step one\nstep two\n' });
    expect(request.preview).toMatchObject({ kind: 'diff', path: 'docs/plan.md', before: '', exists: false });
    if (request.preview.kind !== 'diff') throw new Error('expected a diff preview');
    expect(request.preview.unified).toContain('+step one');
    expect(request.preview.unified).toContain('+step two');
    // Still waiting for the person, and the dry run wrote nothing.
    expect(await stillPending(call)).toBe(true);
    expect(existsSync(join(gate.dirs.workspace, 'docs'))).toBe(false);
    expect((await gate.running.backend.handlers.listApprovals({})).map((item) => item.approvalId)).toEqual([request.approvalId]);

    const outcome = await gate.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
    expect(outcome.outcome).toBe('approved');
    const result = await call;
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({ path: 'docs/plan.md', bytesWritten: 18, created: true });
    expect(readFileSync(join(gate.dirs.workspace, 'docs/plan.md'), 'utf8')).toBe('step one\nstep two\n');
    expect(callIdOf(result)).toBe(request.callId);
    expect(auditKinds(gate.running.gate.audit.forCall(request.callId))).toEqual([
      'invoked',
      'capability',
      'policy',
      'approval-requested',
      'approval-decided',
      'started',
      'completed',
    ]);
    expect(await gate.running.backend.handlers.listApprovals({})).toEqual([]);
  });

  it('a denial with a reason reaches the agent and leaves the file unchanged', async () => {
    const { gate, client } = await open();
    const file = join(gate.dirs.workspace, 'config.json');
    writeFileSync(file, '{"debug": false}\n');
    const prompt = nextApproval(gate.running.backend);
    const call = client.callTool({ name: 'write_file', arguments: { path: 'config.json', content: '{"debug": true}\n' } });
    const request = await prompt;
    expect(request.preview).toMatchObject({ kind: 'diff', exists: true, before: '{"debug": false}\n' });
    if (request.preview.kind !== 'diff') throw new Error('expected a diff preview');
    expect(request.preview.unified).toContain('-{"debug": false}');
    expect(request.preview.unified).toContain('+{"debug": true}');

    await gate.running.backend.handlers.decideApproval({
      approvalId: request.approvalId,
      decision: 'deny',
      reason: 'debug mode stays off in this repo',
    });
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^EDENIED/);
    expect(textOf(result)).toContain('debug mode stays off in this repo');
    expect(result._meta?.['toolgate/errorCode']).toBe('EDENIED');
    expect(readFileSync(file, 'utf8')).toBe('{"debug": false}\n');
    const kinds = auditKinds(gate.running.gate.audit.forCall(callIdOf(result)));
    expect(kinds).toContain('approval-decided');
    expect(kinds).not.toContain('started');
    expect(kinds.at(-1)).toBe('rejected');
  });

  it('a prompt nobody answers is denied when it expires', async () => {
    const { gate, client } = await open({ approvalTimeoutMs: 300 });
    const result = await client.callTool({ name: 'write_file', arguments: { path: 'late.txt', content: 'too late' } });
    // Denied by the prompt's expiry, as the reason says, not refused at once.
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^EDENIED/);
    expect(textOf(result)).toMatch(/no one approved it in time/);
    expect(existsSync(join(gate.dirs.workspace, 'late.txt'))).toBe(false);
    const decided = gate.running.gate.audit.forCall(callIdOf(result)).find((record) => record.kind === 'approval-decided');
    expect(decided?.payload).toMatchObject({ outcome: 'expired' });
    // A late answer is refused: the prompt is gone.
    const approvalId = (decided!.payload as { approvalId: string }).approvalId;
    await expect(gate.running.backend.handlers.decideApproval({ approvalId, decision: 'approve' })).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
    expect(existsSync(join(gate.dirs.workspace, 'late.txt'))).toBe(false);
  });

  it('a write to a dangling symlink planted in the workspace is refused before anyone is asked', async () => {
    const { gate, client } = await open();
    symlinkSync(join(gate.dirs.outside, 'target.txt'), join(gate.dirs.workspace, 'notes.txt'));
    let asked = false;
    const stop = gate.running.backend.subscribe('approvalRequested', () => {
      asked = true;
    });
    const result = await client.callTool({ name: 'write_file', arguments: { path: 'notes.txt', content: 'escaped' } });
    stop();
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^EPERMISSION.*symlink/);
    expect(asked).toBe(false);
    expect(readdirSync(gate.dirs.outside)).toEqual([]);
  });

  it('the gate closing denies a waiting call, and the agent reads why', async () => {
    const { gate, client } = await open();
    const prompt = nextApproval(gate.running.backend);
    const call = client.callTool({ name: 'write_file', arguments: { path: 'x.txt', content: 'x' } });
    await prompt;
    await gate.running.close();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^EDENIED.*shutting down/);
    expect(existsSync(join(gate.dirs.workspace, 'x.txt'))).toBe(false);
  });
});
