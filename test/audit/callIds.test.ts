/**
 * A call's id keys its records in the log and its row in the explorer's index: ids that sort in the
 * order calls came keep both indexes appending at their end (each commit then writes the same few
 * pages however large the log has grown), while every id stays unique.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openGate, type Harness } from '../executor/gateHarness';

let harness: Harness;
beforeEach(async () => {
  harness = await openGate();
});
afterEach(async () => {
  await harness.close();
});

describe('call ids', () => {
  it('sort in the order the calls came, in the results and in the log, each one unique', async () => {
    const { gate } = harness;
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      // Refused calls (an unknown tool) take an id as any call does.
      const result = await gate.executor.call({ tool: i % 10 === 9 ? 'no_such_tool' : 'echo', arguments: { text: `call ${i}` } });
      ids.push(result.meta.callId);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    const logged = gate.audit.list({ limit: 1000 }).reverse().map((record) => record.callId);
    expect(logged).toEqual(ids);
  });
});
