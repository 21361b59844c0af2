import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nestedArrays } from '../fixtures/nestedJson';
import { HOSTILE_TOOLS, auditKinds, nextApproval, openGate, terminalCount, type Harness } from './gateHarness';

const BROKEN_SCHEMA = resolve(__dirname, '../fixtures/tools/brokenSchema.mjs');

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('executor: inputs that could hurt the gate itself', () => {
  it('refuses arguments nested thousands deep, records them as a note, and the console can still list the call', async () => {
    harness = await openGate();
    const { gate } = harness;
    const result = await gate.executor.call({ tool: 'list_dir', arguments: { path: nestedArrays(10_000) } });
    expect(result.error?.code).toBe('EVALIDATION');
    expect(result.error?.message).toContain('nest deeper than 64 levels');
    expect(auditKinds(gate, result.meta.callId)).toEqual(['invoked', 'rejected']);
    expect(gate.audit.forCall(result.meta.callId)[0]!.payload).toMatchObject({ arguments: { 'toolgate/omitted': expect.any(String) } });
    const listed = await gate.backend.handlers.listCalls({});
    expect(() => JSON.stringify(listed)).not.toThrow();
    expect(gate.audit.verify().ok).toBe(true);
  });

  it('refuses a lone surrogate in a key naming the field (made well-formed), and audits the arguments made well-formed', async () => {
    harness = await openGate();
    const { gate } = harness;
    const result = await gate.executor.call({ tool: 'echo', arguments: { text: 'hi', ['odd\uD800key']: 'x' } });
    expect(result.error).toMatchObject({ code: 'EVALIDATION', details: { field: 'odd\uFFFDkey' } });
    expect(result.error?.message).toContain('holds a lone surrogate');
    expect(auditKinds(gate, result.meta.callId)).toEqual(['invoked', 'rejected']);
    expect(gate.audit.forCall(result.meta.callId)[0]!.payload).toMatchObject({ arguments: { text: 'hi', 'odd\uFFFDkey': 'x' } });
    expect(gate.audit.verify().ok).toBe(true);
  });

  it('keeps huge string arguments out of the audit as prefix, length and hash', async () => {
    harness = await openGate();
    const text = 'x'.repeat(200_000);
    const result = await harness.gate.executor.call({ tool: 'hash', arguments: { text } });
    expect(result.ok).toBe(true);
    const invoked = harness.gate.audit.forCall(result.meta.callId)[0]!.payload as { arguments: { text: Record<string, unknown> } };
    expect(invoked.arguments.text).toMatchObject({ chars: 200_000, blake3: (result.data as { hex: string }).hex });
    expect(JSON.stringify(invoked).length).toBeLessThan(4096);
  });

  it('ends a call whose checks throw inside the gate with one failed record instead of leaving it hanging', async () => {
    harness = await openGate({ toolModules: [HOSTILE_TOOLS, BROKEN_SCHEMA] });
    const { gate } = harness;
    const result = await gate.executor.call({ tool: 'broken_schema', arguments: { text: 'hi' } });
    expect(result.error?.code).toBe('ERUNTIME');
    expect(result.error?.message).toContain('transform exploded');
    expect(terminalCount(gate, result.meta.callId)).toBe(1);
    expect(gate.calls.list().find((call) => call.callId === result.meta.callId)?.status).toBe('failed');
    expect((await gate.executor.call({ tool: 'echo', arguments: { text: 'still here' } })).ok).toBe(true);
  });

  it('refuses a path name too long for the file system as EVALIDATION', async () => {
    harness = await openGate();
    const result = await harness.gate.executor.call({ tool: 'read_file', arguments: { path: `${'n'.repeat(300)}.txt` } });
    expect(result.error?.code).toBe('EVALIDATION');
    expect(terminalCount(harness.gate, result.meta.callId)).toBe(1);
  });

  it('refuses a write whose preview cannot be taken without asking anyone (a directory as the target)', async () => {
    harness = await openGate();
    let asked = false;
    harness.gate.events.subscribe('approvalRequested', () => {
      asked = true;
    });
    const result = await harness.gate.executor.call({ tool: 'write_file', arguments: { path: '.', content: 'x' } });
    expect(result.error?.code).toBe('EVALIDATION');
    expect(result.error?.message).toContain('preview');
    expect(asked).toBe(false);
    expect(auditKinds(harness.gate, result.meta.callId)).toEqual(['invoked', 'capability', 'policy', 'rejected']);
  });

  it('withdraws the prompt when the agent cancels the call, and a late approval writes nothing', async () => {
    harness = await openGate();
    const { gate } = harness;
    const controller = new AbortController();
    const prompt = nextApproval(gate);
    const resolved = new Promise((resolveOutcome) => gate.events.subscribe('approvalResolved', resolveOutcome));
    const call = gate.executor.call({ tool: 'write_file', arguments: { path: 'late.txt', content: 'late' } }, { signal: controller.signal });
    const request = await prompt;
    controller.abort();
    const result = await call;
    expect(result.error?.code).toBe('EDENIED');
    expect(result.error?.message).toContain('withdrawn: the agent cancelled the call');
    await expect(resolved).resolves.toMatchObject({ approvalId: request.approvalId, outcome: 'withdrawn' });
    expect(gate.approvals.list()).toEqual([]);
    expect(() => gate.approvals.decide(request.approvalId, 'approve')).toThrow(/no longer waiting/);
    expect(existsSync(join(harness.workspace, 'late.txt'))).toBe(false);
  });

  it('shows a change too large to diff line by line as a whole-file replacement, quickly', async () => {
    harness = await openGate();
    const before = Array.from({ length: 5000 }, (_, i) => `old ${i} ${(i * 7919) % 104729}`).join('\n');
    const after = Array.from({ length: 35_000 }, (_, i) => `new ${i} ${(i * 104729) % 7919}`).join('\n');
    writeFileSync(join(harness.workspace, 'big.txt'), `${before}\n`);
    const prompt = nextApproval(harness.gate);
    const call = harness.gate.executor.call({ tool: 'write_file', arguments: { path: 'big.txt', content: `${after}\n` } });
    // The diff gives up at its own limit (shared/diffHunks.ts) and the prompt still comes, as a whole-file replacement.
    const request = await prompt;
    expect(request.preview.kind).toBe('diff');
    const asked = harness.gate.audit.forCall(request.callId).find((record) => record.kind === 'approval-requested')!;
    expect(asked.payload).toMatchObject({ preview: { added: 35_000, removed: 5000 } });
    harness.gate.approvals.decide(request.approvalId, 'deny', 'too big');
    await call;
  });
});

describe('executor: a read-only gate', () => {
  it('tells the agent that write_file is missing because the gate is read-only', async () => {
    harness = await openGate({ readOnly: true, toolModules: [] });
    const result = await harness.gate.executor.call({ tool: 'write_file', arguments: { path: 'a.txt', content: 'x' } });
    expect(result.error?.code).toBe('ENOTFOUND');
    expect(result.error?.message).toContain('read-only');
    expect(harness.gate.registry.list().map((manifest) => manifest.name)).toEqual(['calculator', 'echo', 'hash', 'http_fetch', 'list_dir', 'memory_list', 'memory_search', 'read_file', 'search_files']);
  });
});
