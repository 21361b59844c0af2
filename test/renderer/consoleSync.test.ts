import { afterEach, describe, expect, it, vi } from 'vitest';
import { BridgeError, type BridgeHandlers } from '../../shared/contract';
import type { ConnectionState } from '../../renderer/bridge/connectionState';
import { createConsoleStore } from '../../renderer/store/consoleStore';
import { ConsoleSync, VERIFY_DEBOUNCE_MS, VERIFY_MIN_INTERVAL_MS, type ConnectionSource } from '../../renderer/store/consoleSync';
import { DraftReasons } from '../../renderer/store/draftReasons';
import { callsInOrder } from '../../renderer/store/reducers';
import { fakeBridge } from './fakeBridge';
import { approval, auditRecord, call, memoryStore, outcome } from './fixtures';

function handlers(overrides: Partial<BridgeHandlers> = {}): Partial<BridgeHandlers> {
  return {
    getInfo: async () => ({ version: '0.1.0', workspace: '/ws', approvalTimeoutMs: 60_000, sandbox: { kind: 'bubblewrap' } }),
    listTools: async () => [],
    listCalls: async () => [call('c1')],
    listApprovals: async () => [approval('a1'), approval('a2')],
    listAudit: async () => [auditRecord(2), auditRecord(1)],
    verifyAudit: async () => ({ ok: true, records: 2 }),
    decideApproval: async ({ approvalId }) => outcome(approvalId),
    ...overrides,
  };
}

function fakeConnection(initial: ConnectionState): ConnectionSource & { set(state: ConnectionState): void } {
  const listeners = new Set<(state: ConnectionState) => void>();
  const connection = {
    state: initial,
    onStateChange(listener: (state: ConnectionState) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(state: ConnectionState) {
      connection.state = state;
      for (const listener of listeners) listener(state);
    },
  };
  return connection;
}

const syncs: ConsoleSync[] = [];
function started(bridge: ReturnType<typeof fakeBridge>['bridge'], connection?: ConnectionSource, drafts?: DraftReasons) {
  const store = createConsoleStore(connection ? connection.state : 'open');
  const sync = new ConsoleSync(bridge, store, connection, drafts);
  syncs.push(sync);
  sync.start();
  return { store, sync };
}

afterEach(() => {
  for (const sync of syncs.splice(0)) sync.stop();
  vi.useRealTimers();
});

/** A started sync on fake timers with its snapshots (and their chain check) loaded, the check's calls cleared. */
async function verifyingSync() {
  vi.useFakeTimers();
  const verifyAudit = vi.fn(async () => ({ ok: true, records: 4 }));
  const fake = fakeBridge(handlers({ verifyAudit }));
  const { store, sync } = started(fake.bridge);
  await sync.refreshSnapshots();
  verifyAudit.mockClear();
  return { verifyAudit, fake, store, sync };
}

describe('ConsoleSync', () => {
  it('loads every snapshot on start', async () => {
    const { bridge } = fakeBridge(handlers());
    const { store, sync } = started(bridge);
    await sync.refreshSnapshots();
    const state = store.getState();
    expect(state.info?.workspace).toBe('/ws');
    expect(callsInOrder(state.calls).map((c) => c.callId)).toEqual(['c1']);
    expect(state.approvals.map((a) => a.approvalId)).toEqual(['a1', 'a2']);
    expect(state.audit.map((r) => r.seq)).toEqual([2, 1]);
    expect(state.verify.report).toEqual({ ok: true, records: 2 });
    expect(state.loadError).toBeUndefined();
  });

  it('puts new calls on top as events arrive', async () => {
    const fake = fakeBridge(handlers());
    const { store, sync } = started(fake.bridge);
    await sync.refreshSnapshots();
    fake.emit('callUpdated', call('c2', { startedAt: '2025-01-01T00:00:05.000Z' }));
    fake.emit('callUpdated', call('c1', { status: 'completed' }));
    expect(callsInOrder(store.getState().calls).map((c) => [c.callId, c.status])).toEqual([
      ['c2', 'checking'],
      ['c1', 'completed'],
    ]);
  });

  it('removes a prompt when it is resolved, and a late snapshot does not bring it back', async () => {
    const fake = fakeBridge(handlers());
    const { store, sync } = started(fake.bridge);
    await sync.refreshSnapshots();
    fake.emit('approvalRequested', approval('a3', { expiresAt: '2025-01-01T00:05:00.000Z' }));
    fake.emit('approvalResolved', outcome('a1', 'expired'));
    expect(store.getState().approvals.map((a) => a.approvalId)).toEqual(['a2', 'a3']);
    await sync.refreshSnapshots();
    expect(store.getState().approvals.map((a) => a.approvalId)).toEqual(['a2']);
  });

  it('removes a prompt as soon as the decision is accepted', async () => {
    const fake = fakeBridge(handlers());
    const { store, sync } = started(fake.bridge);
    await sync.refreshSnapshots();
    await sync.decideApproval('a2', 'deny', '  too risky ');
    expect(fake.calls.at(-1)).toEqual({
      method: 'decideApproval',
      params: { approvalId: 'a2', decision: 'deny', reason: 'too risky' },
    });
    expect(store.getState().approvals.map((a) => a.approvalId)).toEqual(['a1']);
  });

  it('passes a refused decision on to the caller and keeps the prompt', async () => {
    const fake = fakeBridge(
      handlers({
        decideApproval: async () => {
          throw new BridgeError('ENOTFOUND', 'the prompt already expired');
        },
      }),
    );
    const { store, sync } = started(fake.bridge);
    await sync.refreshSnapshots();
    await expect(sync.decideApproval('a1', 'approve', '')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(store.getState().approvals).toHaveLength(2);
  });

  it('keeps a typed reason until its prompt resolves, however it resolves', async () => {
    const fake = fakeBridge(handlers({ listApprovals: async () => [approval('a1'), approval('a2'), approval('a3')] }));
    const drafts = new DraftReasons(memoryStore());
    for (const approvalId of ['a1', 'a2', 'a3', 'gone']) drafts.set(approvalId, `reason for ${approvalId}`);
    const { sync } = started(fake.bridge, undefined, drafts);
    await sync.refreshSnapshots();
    // A prompt that resolved while the page was away (a reload) loses its draft with the snapshot.
    expect(drafts.get('gone')).toBe('');
    expect(drafts.get('a1')).toBe('reason for a1');
    fake.emit('approvalResolved', outcome('a1', 'expired'));
    expect(drafts.get('a1')).toBe('');
    await sync.decideApproval('a2', 'deny', drafts.get('a2'));
    expect(drafts.get('a2')).toBe('');
    expect(drafts.get('a3')).toBe('reason for a3');
  });

  it('keeps the draft when the gate refuses the decision', async () => {
    const fake = fakeBridge(
      handlers({
        decideApproval: async () => {
          throw new BridgeError('EUNAVAILABLE', 'the link dropped');
        },
      }),
    );
    const drafts = new DraftReasons(memoryStore());
    drafts.set('a1', 'not now');
    const { sync } = started(fake.bridge, undefined, drafts);
    await sync.refreshSnapshots();
    await expect(sync.decideApproval('a1', 'deny', 'not now')).rejects.toThrow();
    expect(drafts.get('a1')).toBe('not now');
  });

  it('prepends appended records and re-verifies once after a burst', async () => {
    const { verifyAudit, fake, store } = await verifyingSync();

    fake.emit('auditAppended', auditRecord(3));
    fake.emit('auditAppended', auditRecord(4));
    expect(store.getState().audit.map((r) => r.seq)).toEqual([4, 3, 2, 1]);
    expect(store.getState().verify.stale).toBe(true);

    // The snapshot's check just ran: the next waits out the minimum interval.
    await vi.advanceTimersByTimeAsync(VERIFY_MIN_INTERVAL_MS);
    expect(verifyAudit).toHaveBeenCalledTimes(1);
    expect(store.getState().verify).toMatchObject({ report: { ok: true, records: 4 }, stale: false });
  });

  it('re-verifies 300 ms after a burst once the last check is old enough', async () => {
    const { verifyAudit, fake } = await verifyingSync();
    await vi.advanceTimersByTimeAsync(VERIFY_MIN_INTERVAL_MS);
    verifyAudit.mockClear();
    fake.emit('auditAppended', auditRecord(3));
    await vi.advanceTimersByTimeAsync(VERIFY_DEBOUNCE_MS);
    expect(verifyAudit).toHaveBeenCalledTimes(1);
  });

  it('checks the chain at most once per interval while records stream in', async () => {
    const { verifyAudit, fake, store } = await verifyingSync();
    // Twelve seconds of records, with a pause of 400 ms after every second (a quiet moment each time).
    for (let second = 0; second < 12; second++) {
      for (let tick = 0; tick < 6; tick++) {
        fake.emit('auditAppended', auditRecord(10 + second * 6 + tick));
        await vi.advanceTimersByTimeAsync(100);
      }
      await vi.advanceTimersByTimeAsync(400);
    }
    expect(verifyAudit.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(verifyAudit.mock.calls.length).toBeLessThanOrEqual(Math.ceil((12 * 1000) / VERIFY_MIN_INTERVAL_MS));
    // The last check is at most an interval old, and says so until it runs again.
    await vi.advanceTimersByTimeAsync(VERIFY_MIN_INTERVAL_MS);
    expect(store.getState().verify.stale).toBe(false);
  });

  it('says which snapshot failed and keeps the rest', async () => {
    const fake = fakeBridge(
      handlers({
        listTools: async () => {
          throw new BridgeError('ERUNTIME', 'registry unavailable');
        },
      }),
    );
    const { store, sync } = started(fake.bridge);
    await sync.refreshSnapshots();
    expect(store.getState().loadError).toContain('ERUNTIME: registry unavailable');
    expect(store.getState().approvals).toHaveLength(2);
  });

  it('loads snapshots when the connection opens, and again after a reconnect', async () => {
    const fake = fakeBridge(handlers());
    const connection = fakeConnection('connecting');
    const { store } = started(fake.bridge, connection);
    expect(fake.calls).toHaveLength(0);

    connection.set('open');
    await vi.waitFor(() => expect(store.getState().verify.report).toBeDefined());
    const loads = () => fake.calls.filter((c) => c.method === 'listCalls').length;
    expect(loads()).toBe(1);

    connection.set('reconnecting');
    expect(store.getState().connection).toBe('reconnecting');
    connection.set('open');
    await vi.waitFor(() => expect(loads()).toBe(2));
    expect(store.getState().connection).toBe('open');
  });
});
