/**
 * Links inside the console: a Live row's "Open prompt" shows that prompt on the Approvals tab (each
 * click scrolls to it again), a desktop notification's click does the same, and "Audit trail" shows
 * one call's records on the Audit tab, kept up to date, and nobody else's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../shared/audit';
import { BridgeError } from '../../shared/contract';
import { createConsoleStore } from '../../renderer/store/consoleStore';
import { ConsoleSync } from '../../renderer/store/consoleSync';
import { fakeBridge } from './fakeBridge';
import { auditRecord } from './fixtures';

function record(seq: number, callId: string): AuditRecord {
  return { ...auditRecord(seq), callId };
}

const syncs: ConsoleSync[] = [];
afterEach(() => {
  for (const sync of syncs.splice(0)) sync.stop();
});

function started(handlers: Parameters<typeof fakeBridge>[0] = {}) {
  const fake = fakeBridge({
    getInfo: async () => ({ version: '0.1.0', workspace: '/ws', approvalTimeoutMs: 60_000, sandbox: { kind: 'bubblewrap' } }),
    listTools: async () => [],
    listCalls: async () => [],
    listApprovals: async () => [],
    listAudit: async () => [],
    verifyAudit: async () => ({ ok: true, records: 0 }),
    ...handlers,
  });
  const store = createConsoleStore('open', 'Live');
  const sync = new ConsoleSync(fake.bridge, store);
  syncs.push(sync);
  sync.start();
  return { ...fake, store, sync };
}

describe('links in the console', () => {
  it('opens a prompt on the Approvals tab, again on every click, and from a desktop notification', () => {
    const { store, sync, emit } = started();
    sync.openPrompt('a1');
    expect(store.getState().view).toMatchObject({ tab: 'Approvals', openedApprovalId: 'a1', openings: 1 });
    sync.showTab('Live');
    sync.openPrompt('a1');
    expect(store.getState().view).toMatchObject({ tab: 'Approvals', openedApprovalId: 'a1', openings: 2 });
    sync.showTab('Tools');
    emit('openApproval', { approvalId: 'a2' });
    expect(store.getState().view).toMatchObject({ tab: 'Approvals', openedApprovalId: 'a2', openings: 3 });
  });

  it("shows one call's audit trail, adds its new records as they are appended, and leaves other calls' out", async () => {
    const { store, sync, emit, calls } = started({ listAudit: async ({ callId }) => (callId === 'c1' ? [record(3, 'c1'), record(1, 'c1')] : []) });
    await sync.showAuditTrail('c1');
    expect(calls.at(-1)).toEqual({ method: 'listAudit', params: { callId: 'c1', limit: 1000 } });
    expect(store.getState().view).toMatchObject({ tab: 'Audit', auditCallId: 'c1' });
    expect(store.getState().auditTrail?.records?.map((r) => r.seq)).toEqual([3, 1]);
    emit('auditAppended', record(4, 'c2'));
    emit('auditAppended', record(5, 'c1'));
    expect(store.getState().auditTrail?.records?.map((r) => r.seq)).toEqual([5, 3, 1]);
    sync.clearAuditTrail();
    expect(store.getState().auditTrail).toBeUndefined();
    expect(store.getState().view.auditCallId).toBeUndefined();
  });

  it('says why a trail could not be loaded', async () => {
    const { store, sync } = started({
      listAudit: async () => {
        throw new BridgeError('EBRIDGE', 'the gate went away');
      },
    });
    await sync.showAuditTrail('c9');
    expect(store.getState().auditTrail).toMatchObject({ callId: 'c9', records: undefined });
    expect(store.getState().auditTrail?.error).toBe('Could not load the audit trail of c9: EBRIDGE: the gate went away');
  });

  it("keeps the trail the person asked for last when an earlier one answers late", async () => {
    let answerFirst: (records: AuditRecord[]) => void = () => {};
    const { store, sync } = started({
      listAudit: ({ callId }) =>
        callId === 'slow' ? new Promise<AuditRecord[]>((resolve) => (answerFirst = resolve)) : Promise.resolve([record(7, 'fast')]),
    });
    const slow = sync.showAuditTrail('slow');
    await sync.showAuditTrail('fast');
    answerFirst([record(2, 'slow')]);
    await slow;
    expect(store.getState().auditTrail).toMatchObject({ callId: 'fast' });
    expect(store.getState().auditTrail?.records?.map((r) => r.seq)).toEqual([7]);
  });
});
