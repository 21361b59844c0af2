/**
 * The explorer over records a real gate wrote: each call's row says what the Live view says of it
 * (outcome, who decided, waits and run times), with the policy's decision, rule and the tier the
 * call was judged at; the console's bridge answers pages, detail and stats. Needs
 * `npx electron-vite build` first (real tool processes).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { snapshotFromAudit } from '../../main/executor/callHistory';
import { GateError } from '../../shared/errors';
import { nextApproval, openGate, type Harness } from '../executor/gateHarness';

let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('the call index of a running gate', () => {
  it('agrees with the Live view on every call: allowed, approved, denied by a person, refused by policy, failed', async () => {
    harness = await openGate();
    const { gate } = harness;
    const echo = await gate.executor.call({ tool: 'echo', arguments: { text: 'hello explorer' } });
    const approvedPrompt = nextApproval(gate);
    const approved = gate.executor.call({ tool: 'write_file', arguments: { path: 'notes.md', content: 'kept\n' }, agentSession: 'session-a' });
    const asked = await approvedPrompt;
    await new Promise((resolve) => setTimeout(resolve, 200));
    gate.approvals.decide(asked.approvalId, 'approve');
    const deniedPrompt = nextApproval(gate);
    const denied = gate.executor.call({ tool: 'write_file', arguments: { path: 'other.md', content: 'no\n' }, agentSession: 'session-a' });
    gate.approvals.decide((await deniedPrompt).approvalId, 'deny', 'not this file');
    const dangerous = await gate.executor.call({ tool: 'dangerous', arguments: {} });
    const crashed = await gate.executor.call({ tool: 'crash', arguments: {} });
    const ids = [echo.meta.callId, (await approved).meta.callId, (await denied).meta.callId, dangerous.meta.callId, crashed.meta.callId];

    const page = await gate.backend.handlers.exploreCalls({ filter: {}, limit: 100, facets: true });
    expect(page.rows.map((row) => row.callId)).toEqual([...ids].reverse());
    for (const row of page.rows) {
      const records = gate.audit.forCall(row.callId);
      const live = snapshotFromAudit(records)!;
      expect(row, row.tool).toMatchObject({
        tool: live.tool,
        time: live.startedAt,
        seq: records[0]!.seq,
        lastSeq: records.at(-1)!.seq,
        decider: live.decidedBy?.by,
        decidedDetail: live.decidedBy?.detail,
      });
      expect(row.waitedMs).toBe(live.waitedMs);
      expect(row.ranMs).toBe(live.ranMs);
      expect(row.durationMs).toBe(live.durationMs);
      expect(row.errorCode).toBe(live.error?.code);
      expect(row.session).toBe(live.agentSession);
    }
    const [crashRow, dangerousRow, deniedRow, approvedRow, echoRow] = page.rows;
    expect(echoRow).toMatchObject({ outcome: 'completed', decision: 'allow', decider: 'default', rule: 'tier:SAFE→allow', tier: 'SAFE', argsBrief: '{"text":"hello explorer"}' });
    expect(approvedRow).toMatchObject({ outcome: 'completed', decision: 'ask', decider: 'person', decidedDetail: 'approved', session: 'session-a' });
    expect(approvedRow!.tier).toMatch(/ELEVATED|RESTRICTED/);
    expect(approvedRow!.waitedMs).toBeGreaterThanOrEqual(150);
    expect(deniedRow).toMatchObject({ outcome: 'rejected', decider: 'person', decidedDetail: 'denied: not this file', errorCode: 'EDENIED' });
    expect(dangerousRow).toMatchObject({ outcome: 'rejected', decision: 'deny', decider: 'default', tier: 'DANGEROUS', errorCode: 'EDENIED' });
    expect(crashRow).toMatchObject({ outcome: 'failed', decision: 'allow' });
    expect(page.facets!.outcome).toEqual(expect.arrayContaining([{ value: 'completed', count: 2 }, { value: 'rejected', count: 2 }, { value: 'failed', count: 1 }]));

    // Search reaches arguments, reasons and paths; the detail and the charts come over the bridge too.
    expect((await gate.backend.handlers.exploreCalls({ filter: { text: 'HELLO EXPLORER' }, limit: 100, facets: false })).rows.map((row) => row.callId)).toEqual([echo.meta.callId]);
    expect((await gate.backend.handlers.exploreCalls({ filter: { text: 'not this file' }, limit: 100, facets: false })).rows.map((row) => row.tool)).toEqual(['write_file']);
    expect((await gate.backend.handlers.exploreCalls({ filter: { text: 'other.md' }, limit: 100, facets: false })).total).toBe(1);
    const detail = await gate.backend.handlers.callDetail({ callId: approvedRow!.callId });
    expect(detail.records.map((record) => record.kind)).toContain('approval-decided');
    // write_file is declared Deterministic, but a replay would write again: never re-run.
    expect(detail.replay).toEqual({ possible: false, reason: expect.stringContaining('re-running it would change things again') });
    expect((await gate.backend.handlers.callDetail({ callId: echoRow!.callId })).replay.possible).toBe(true);
    await expect(gate.backend.handlers.callDetail({ callId: 'nope' })).rejects.toThrow(/has no call "nope"/);
    const stats = await gate.backend.handlers.explorerStats({ filter: {} });
    expect(stats.sessions).toEqual([expect.objectContaining({ session: 'session-a', calls: 2, denied: 1 })]);
    await expect(gate.backend.handlers.exploreCalls({ filter: { text: 'hi' }, limit: 100, facets: false })).rejects.toBeInstanceOf(GateError);
  });
});

describe('the explorer over a log with few kinds of calls', () => {
  it('answers every query and chart on a log with no calls, one call, and only successes (no denial, no failure)', async () => {
    harness = await openGate();
    const { gate } = harness;
    const ask = async () => {
      const page = await gate.backend.handlers.exploreCalls({ filter: {}, limit: 100, facets: true });
      const stats = await gate.backend.handlers.explorerStats({ filter: {} });
      return { page, stats };
    };
    const empty = await ask();
    expect(empty.page.rows).toEqual([]);
    expect(empty.stats.sessions).toEqual([]);
    expect(empty.stats.topTools).toEqual([]);

    const one = await gate.executor.call({ tool: 'echo', arguments: { text: 'only' }, agentSession: 'session-ok' });
    const single = await ask();
    expect(single.page.rows.map((row) => row.callId)).toEqual([one.meta.callId]);
    expect(single.stats.sessions).toEqual([expect.objectContaining({ session: 'session-ok', calls: 1, failed: 0, denied: 0 })]);
    expect(single.stats.denialsByRule).toEqual([]);

    await gate.executor.call({ tool: 'echo', arguments: { text: 'again' }, agentSession: 'session-ok' });
    const successes = await ask();
    expect(successes.stats.sessions).toEqual([expect.objectContaining({ session: 'session-ok', calls: 2, failed: 0, denied: 0 })]);
    expect(successes.stats.topTools).toEqual([{ tool: 'echo', count: 2 }]);
    const detail = await gate.backend.handlers.callDetail({ callId: one.meta.callId });
    expect(detail.records.length).toBeGreaterThan(0);
  });
});
