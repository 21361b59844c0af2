import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalize } from '../../shared/canonicalJson';
import { blake3Hex } from '../../shared/hash';
import { auditKinds, openGate, storedKinds, terminalCount, type Harness } from './gateHarness';

let harness: Harness;
beforeEach(async () => {
  harness = await openGate();
});
afterEach(async () => {
  await harness.close();
});

/** A call that must work: proves the gate survived whatever came before. */
async function echoWorks(text = 'still alive'): Promise<void> {
  const result = await harness.gate.executor.call({ tool: 'echo', arguments: { text } });
  expect(result.error).toBeUndefined();
  expect(result.data).toEqual({ text });
}

describe('executor: a call that runs', () => {
  it('returns the data, hashed, with the full audit trail', async () => {
    const { gate } = harness;
    const result = await gate.executor.call({ tool: 'echo', arguments: { text: 'héllo 😀' }, source: 'test' });
    expect(result.ok).toBe(true);
    expect(result.data).toEqual({ text: 'héllo 😀' });
    expect(result.meta.responseHash).toBe(blake3Hex(canonicalize(result.data)));
    expect(Date.parse(result.meta.endedAt)).toBeGreaterThanOrEqual(Date.parse(result.meta.startedAt));
    expect(auditKinds(gate, result.meta.callId)).toEqual(['invoked', 'capability', 'policy', 'started', 'completed']);
    const completed = gate.audit.forCall(result.meta.callId).at(-1)!;
    expect(completed.payload).toMatchObject({ responseHash: result.meta.responseHash });
    // A call that changes nothing is one record, written at its end, holding every step with its timing.
    expect(storedKinds(gate, result.meta.callId)).toEqual(['call']);
    const [stored] = gate.audit.recordsOfCall(result.meta.callId);
    const steps = (stored!.payload as { steps: Array<{ kind: string; time: string; atMs: number }> }).steps;
    expect(steps.map((step) => step.kind)).toEqual(['invoked', 'capability', 'policy', 'started', 'completed']);
    expect(steps.map((step) => step.atMs)).toEqual([...steps.map((step) => step.atMs)].sort((a, b) => a - b));
    expect(gate.audit.verify()).toEqual({ ok: true, records: 1 });
  });

  it('accepts arguments sent as raw JSON text', async () => {
    const result = await harness.gate.executor.call({ tool: 'hash', arguments: '{"text": "abc"}' });
    expect(result.data).toEqual({ algorithm: 'blake3', hex: blake3Hex('abc') });
  });

  it('shows the call in the tracker as completed with its hash', async () => {
    const result = await harness.gate.executor.call({ tool: 'echo', arguments: { text: 'x' } });
    const snapshot = harness.gate.calls.list().find((call) => call.callId === result.meta.callId);
    expect(snapshot).toMatchObject({ status: 'completed', tool: 'echo', tier: 'SAFE', responseHash: result.meta.responseHash });
  });
});

describe('executor: a tool that misbehaves costs only its own call', () => {
  it('a hanging tool is killed at its deadline with ETIMEOUT, and the next call works', async () => {
    const { gate } = harness;
    const result = await gate.executor.call({ tool: 'hang', arguments: {} });
    expect(result.ok).toBe(false);
    expect(result.error).toMatchObject({ code: 'ETIMEOUT', details: { timeoutMs: 300 } });
    // The gate's own deadline ended it (not the test's timeout): the error names that 300 ms deadline.
    expect(result.error?.message).toContain('300 ms deadline');
    expect(auditKinds(gate, result.meta.callId)).toEqual(['invoked', 'capability', 'policy', 'started', 'failed']);
    await echoWorks();
    await echoWorks('twice');
  });

  it('a tool that kills its process fails with ECRASH, and the next call works', async () => {
    const { gate } = harness;
    const result = await gate.executor.call({ tool: 'crash', arguments: {} });
    expect(result.error?.code).toBe('ECRASH');
    expect(result.error?.message).toContain('exit code 3');
    expect(auditKinds(gate, result.meta.callId)).toEqual(['invoked', 'capability', 'policy', 'started', 'failed']);
    await echoWorks();
  });

  it('a tool that throws fails with ERUNTIME carrying its message', async () => {
    const result = await harness.gate.executor.call({ tool: 'throws', arguments: {} });
    expect(result.error).toMatchObject({ code: 'ERUNTIME', message: 'the fixture tool blew up on purpose' });
    expect(auditKinds(harness.gate, result.meta.callId).at(-1)).toBe('failed');
    await echoWorks();
  });

  it('output that breaks the tool’s own schema fails with ERUNTIME naming the field', async () => {
    const result = await harness.gate.executor.call({ tool: 'bad_output', arguments: {} });
    expect(result.error?.code).toBe('ERUNTIME');
    expect(result.error?.message).toContain('breaks its own schema: count:');
    expect(result.data).toBeUndefined();
    expect(result.meta.responseHash).toBe(blake3Hex(canonicalize(result.error)));
    expect(auditKinds(harness.gate, result.meta.callId)).toEqual(['invoked', 'capability', 'policy', 'started', 'failed']);
  });

  it('a process that breaks the protocol is killed with ECRASH, and the next call works', async () => {
    const result = await harness.gate.executor.call({ tool: 'rogue_message', arguments: {} });
    expect(result.error?.code).toBe('ECRASH');
    expect(result.error?.message).toContain('malformed message');
    await echoWorks();
  });

  it('leaves a chain that verifies, with exactly one terminal record per call', async () => {
    const { gate } = harness;
    const tools = ['hang', 'crash', 'throws', 'bad_output', 'echo'];
    const results = [];
    for (const tool of tools) results.push(await gate.executor.call({ tool, arguments: tool === 'echo' ? { text: 'ok' } : {} }));
    for (const result of results) expect(terminalCount(gate, result.meta.callId)).toBe(1);
    // None of them changes anything: each call is one record.
    for (const result of results) expect(storedKinds(gate, result.meta.callId)).toEqual(['call']);
    expect(gate.audit.verify()).toMatchObject({ ok: true, records: tools.length });
  });
});
