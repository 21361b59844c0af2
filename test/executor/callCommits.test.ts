/**
 * When a call's records are committed before its answer: at once for a call that is the only one
 * under way and is one record (no other record is coming to share the commit), and with the group
 * commit of the event loop's turn while other calls are under way, so that calls ending together
 * share one, or when the call was written ahead of its end (it may have changed files).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { nextApproval, openGate, storedKinds, type Harness } from './gateHarness';

let harness: Harness;
/** For each durable() the executor asked for, whether it asked to commit at once. */
let asked: boolean[];

beforeEach(async () => {
  harness = await openGate({ policyRules: ['write_file'] });
  asked = [];
  const { audit } = harness.gate;
  const durable = audit.durable.bind(audit);
  vi.spyOn(audit, 'durable').mockImplementation((options) => {
    asked.push(options?.now === true);
    return durable(options);
  });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await harness.close();
});

describe('executor: committing a call before its answer', () => {
  it('commits a call that runs alone at once, and one that ends while another waits with the turn\'s group commit', async () => {
    const { gate } = harness;
    const alone = await gate.executor.call({ tool: 'echo', arguments: { text: 'alone' } });
    expect(alone.ok).toBe(true);
    expect(asked).toEqual([true]);

    // A call waiting for a person is under way while the next one runs and ends.
    const prompt = nextApproval(gate);
    const waiting = gate.executor.call({ tool: 'restricted_no_dry_run', arguments: { note: 'waits' } });
    const request = await prompt;
    asked = [];
    const beside = await gate.executor.call({ tool: 'echo', arguments: { text: 'beside' } });
    expect(beside.ok).toBe(true);
    expect(asked).toEqual([false]);

    // Denied, the waiting call ends alone, but it was written ahead when the person was asked: it waits for the turn.
    asked = [];
    gate.approvals.decide(request.approvalId, 'deny', 'not now');
    expect((await waiting).ok).toBe(false);
    expect(asked).toEqual([false]);

    // A call written ahead of its end (it may change files) waits for the turn, alone or not.
    asked = [];
    const written = await gate.executor.call({ tool: 'write_file', arguments: { path: 'note.txt', content: 'kept\n' } });
    expect(written.ok).toBe(true);
    expect(storedKinds(gate, written.meta.callId)).toEqual(['call-begun', 'call-ended']);
    // Its write-ahead before the tool ran, and its end.
    expect(asked).toEqual([false, false]);

    // Every call's record is in the log either way, and the chain holds.
    for (const result of [alone, beside]) expect(storedKinds(gate, result.meta.callId)).toEqual(['call']);
    expect(gate.audit.verify().ok).toBe(true);
  });
});
