import { describe, expect, it, vi } from 'vitest';
import { createConsoleStore } from '../../renderer/store/consoleStore';
import { ConsoleSync } from '../../renderer/store/consoleSync';
import { animationFrameScheduler, HIDDEN_TAB_FLUSH_MS } from '../../renderer/store/eventBatch';
import { callsInOrder } from '../../renderer/store/reducers';
import { fakeBridge } from './fakeBridge';
import { floodedSync } from './floodedSync';
import { approval, auditRecord, call, outcome } from './fixtures';

function expiry(n: number): string {
  return new Date(Date.UTC(2030, 0, 1) + n * 1000).toISOString();
}

describe('the console under a flood of events', () => {
  it('applies 10,000 prompts arriving in one frame as one store update, in expiry order', () => {
    const { fake, store, sync, runFrames, updates } = floodedSync();
    const expiriesRead = vi.spyOn(Date, 'parse');
    // Arriving out of order: the one that expires first must still be on top.
    for (let n = 9_999; n >= 0; n--) fake.emit('approvalRequested', approval(`a${n}`, { expiresAt: expiry(n) }));
    expect(store.getState().approvals).toHaveLength(0);
    runFrames();
    const pending = store.getState().approvals;
    expect(pending).toHaveLength(10_000);
    expect(pending[0]!.approvalId).toBe('a0');
    expect(pending.at(-1)!.approvalId).toBe('a9999');
    expect(updates()).toBe(1);
    // Each expiry read once, then sorted by the number: a sort reading both sides of every comparison reads ~28 a prompt.
    expect(expiriesRead.mock.calls.length).toBeLessThanOrEqual(2 * 10_000);
    expiriesRead.mockRestore();
    sync.stop();
  });

  it('handles a stream of single prompts on a full list in linear time per frame, not quadratic', () => {
    const { fake, store, sync, runFrames } = floodedSync();
    for (let n = 0; n < 10_000; n++) fake.emit('approvalRequested', approval(`a${n}`, { expiresAt: expiry(n) }));
    runFrames();
    const expiriesRead = vi.spyOn(Date, 'parse');
    // 2,000 frames each bringing one more prompt and resolving one: each frame touches the list once.
    for (let n = 0; n < 2_000; n++) {
      fake.emit('approvalRequested', approval(`b${n}`, { expiresAt: expiry(20_000 + n) }));
      fake.emit('approvalResolved', outcome(`a${n}`, 'denied'));
      runFrames();
    }
    // The new prompt finds its place by binary search (~14 reads of 10,000); re-sorting the list would read ~280,000.
    expect(expiriesRead.mock.calls.length).toBeLessThanOrEqual(2_000 * 20);
    expiriesRead.mockRestore();
    expect(store.getState().approvals).toHaveLength(10_000);
    expect(store.getState().approvals[0]!.approvalId).toBe('a2000');
    sync.stop();
  });

  it('a prompt requested and resolved within one frame never shows, and calls and audit records arrive together', () => {
    const { fake, store, sync, runFrames, updates } = floodedSync();
    fake.emit('approvalRequested', approval('gone', { expiresAt: expiry(1) }));
    fake.emit('approvalRequested', approval('stays', { expiresAt: expiry(2) }));
    fake.emit('approvalResolved', outcome('gone', 'denied'));
    fake.emit('callUpdated', call('c1'));
    fake.emit('callUpdated', call('c2'));
    fake.emit('callUpdated', call('c1', { status: 'completed' }));
    fake.emit('auditAppended', auditRecord(1));
    fake.emit('auditAppended', auditRecord(2));
    runFrames();
    const state = store.getState();
    expect(state.approvals.map((a) => a.approvalId)).toEqual(['stays']);
    expect(callsInOrder(state.calls).map((c) => [c.callId, c.status])).toEqual([
      ['c2', 'checking'],
      ['c1', 'completed'],
    ]);
    expect(state.audit.map((r) => r.seq)).toEqual([2, 1]);
    expect(updates()).toBe(1);
    // A late event for a prompt already resolved does not bring it back.
    fake.emit('approvalRequested', approval('gone', { expiresAt: expiry(1) }));
    runFrames();
    expect(store.getState().approvals.map((a) => a.approvalId)).toEqual(['stays']);
    sync.stop();
  });

  it('asks the gate to deny every prompt of one agent session', async () => {
    const fake = fakeBridge({ denyAllFromAgent: async () => ({ denied: 3 }) });
    const sync = new ConsoleSync(fake.bridge, createConsoleStore('open'));
    expect(await sync.denyAllFromAgent('session-1', '  flooding  ')).toBe(3);
    expect(fake.calls.at(-1)).toEqual({ method: 'denyAllFromAgent', params: { agentSession: 'session-1', reason: 'flooding' } });
  });
});

describe('a snapshot loaded during a flood', () => {
  it('keeps prompts announced while the snapshot was on its way, each once', async () => {
    let answer: ((value: ReturnType<typeof approval>[]) => void) | undefined;
    const fake = fakeBridge({
      getInfo: async () => ({ version: '0', workspace: '/ws', approvalTimeoutMs: 60_000, sandbox: { kind: 'none', reason: 'test' } }),
      listTools: async () => [],
      listCalls: async () => [],
      listAudit: async () => [],
      verifyAudit: async () => ({ ok: true, records: 0 }),
      listApprovals: () => new Promise((resolveList) => (answer = resolveList)),
    });
    const store = createConsoleStore('open');
    const frames: Array<() => void> = [];
    const sync = new ConsoleSync(fake.bridge, store, undefined, undefined, (run) => frames.push(run));
    // With no connection to follow, start() loads the snapshots at once.
    sync.start();
    await vi.waitFor(() => expect(answer).toBeDefined());
    // The gate made its list with a1; a2 was announced after, and both events were applied first.
    fake.emit('approvalRequested', approval('a1', { expiresAt: expiry(1) }));
    fake.emit('approvalRequested', approval('a2', { expiresAt: expiry(2) }));
    for (const run of frames.splice(0)) run();
    answer!([approval('a1', { expiresAt: expiry(1) })]);
    await vi.waitFor(() => expect(store.getState().loadError).toBeUndefined());
    await vi.waitFor(() => expect(store.getState().verify.report).toBeDefined());
    for (const run of frames.splice(0)) run();
    expect(store.getState().approvals.map((a) => a.approvalId)).toEqual(['a1', 'a2']);
    sync.stop();
  });

  it('keeps them when two loads overlap, whichever answers last', async () => {
    const answers: Array<(value: ReturnType<typeof approval>[]) => void> = [];
    const fake = fakeBridge({
      getInfo: async () => ({ version: '0', workspace: '/ws', approvalTimeoutMs: 60_000, sandbox: { kind: 'none', reason: 'test' } }),
      listTools: async () => [],
      listCalls: async () => [],
      listAudit: async () => [],
      verifyAudit: async () => ({ ok: true, records: 0 }),
      listApprovals: () => new Promise((resolveList) => answers.push(resolveList)),
    });
    const store = createConsoleStore('open');
    const sync = new ConsoleSync(fake.bridge, store, undefined, undefined, (run) => run());
    sync.start();
    const second = sync.refreshSnapshots();
    await vi.waitFor(() => expect(answers).toHaveLength(2));
    fake.emit('approvalRequested', approval('a1', { expiresAt: expiry(1) }));
    answers[0]!([]);
    fake.emit('approvalRequested', approval('a2', { expiresAt: expiry(2) }));
    await vi.waitFor(() => expect(store.getState().approvals.map((a) => a.approvalId)).toEqual(['a1', 'a2']));
    // The second list was made before either prompt; it must not take them away.
    answers[1]!([]);
    await second;
    expect(store.getState().approvals.map((a) => a.approvalId)).toEqual(['a1', 'a2']);
    sync.stop();
  });
});

describe('the frame scheduler', () => {
  it('applies events in a hidden tab too, where no animation frame ever comes', async () => {
    vi.useFakeTimers();
    vi.stubGlobal('requestAnimationFrame', () => 0);
    try {
      const fake = fakeBridge({});
      const store = createConsoleStore('open');
      const sync = new ConsoleSync(fake.bridge, store, undefined, undefined, animationFrameScheduler());
      sync.start();
      fake.emit('approvalRequested', approval('a1'));
      expect(store.getState().approvals).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(HIDDEN_TAB_FLUSH_MS);
      expect(store.getState().approvals.map((a) => a.approvalId)).toEqual(['a1']);
      sync.stop();
    } finally {
      vi.unstubAllGlobals();
      vi.useRealTimers();
    }
  });
});
