import { describe, expect, it } from 'vitest';
import {
  addApproval,
  callsInOrder,
  mergeAuditRecords,
  mergeCallSnapshot,
  prependAuditRecord,
  removeApproval,
  replaceApprovals,
  upsertCall,
} from '../../renderer/store/reducers';
import type { CallsState } from '../../renderer/store/consoleState';
import { approval, auditRecord, call } from './fixtures';

const EMPTY: CallsState = { byId: {}, order: [] };
const ids = (calls: CallsState) => callsInOrder(calls).map((c) => c.callId);

describe('calls', () => {
  it('puts a new call on top and updates a known one in place', () => {
    let calls = upsertCall(EMPTY, call('c1'), 500);
    calls = upsertCall(calls, call('c2'), 500);
    calls = upsertCall(calls, call('c1', { status: 'completed', step: 'done' }), 500);
    expect(ids(calls)).toEqual(['c2', 'c1']);
    expect(calls.byId.c1!.status).toBe('completed');
  });

  it('drops the oldest calls past the cap', () => {
    let calls = EMPTY;
    for (let i = 1; i <= 5; i++) calls = upsertCall(calls, call(`c${i}`), 3);
    expect(ids(calls)).toEqual(['c5', 'c4', 'c3']);
    expect(calls.byId.c1).toBeUndefined();
  });

  it('orders a snapshot newest first by startedAt', () => {
    const calls = mergeCallSnapshot(
      EMPTY,
      [
        call('old', { startedAt: '2025-01-01T00:00:01.000Z' }),
        call('new', { startedAt: '2025-01-01T00:00:03.000Z' }),
        call('mid', { startedAt: '2025-01-01T00:00:02.000Z' }),
      ],
      500,
    );
    expect(ids(calls)).toEqual(['new', 'mid', 'old']);
  });

  it('lets a snapshot update calls but never move one backwards', () => {
    let calls = upsertCall(EMPTY, call('c1', { status: 'completed' }), 500);
    calls = upsertCall(calls, call('c2', { status: 'checking', step: 'lookup' }), 500);
    calls = mergeCallSnapshot(calls, [call('c1', { status: 'running' }), call('c2', { status: 'running', step: 'execute' })], 500);
    expect(calls.byId.c1!.status).toBe('completed');
    expect(calls.byId.c2).toMatchObject({ status: 'running', step: 'execute' });
  });
});

describe('approvals', () => {
  it('keeps the prompt that expires first on top, without duplicates', () => {
    let pending = addApproval([], approval('late', { expiresAt: '2025-01-01T00:02:00.000Z' }));
    pending = addApproval(pending, approval('soon', { expiresAt: '2025-01-01T00:01:00.000Z' }));
    pending = addApproval(pending, approval('late', { expiresAt: '2025-01-01T00:02:00.000Z' }));
    expect(pending.map((p) => p.approvalId)).toEqual(['soon', 'late']);
  });

  it('removes a resolved prompt and leaves the rest', () => {
    const pending = [approval('a1'), approval('a2')];
    expect(removeApproval(pending, 'a1').map((p) => p.approvalId)).toEqual(['a2']);
    expect(removeApproval(pending, 'unknown')).toHaveLength(2);
  });

  it('keeps prompts already known resolved out of a snapshot', () => {
    const pending = replaceApprovals([approval('a1'), approval('a2')], new Set(['a1']));
    expect(pending.map((p) => p.approvalId)).toEqual(['a2']);
  });
});

describe('audit records', () => {
  it('keeps records newest first, once each, within the cap', () => {
    let records = mergeAuditRecords([], [auditRecord(2), auditRecord(1)], 3);
    records = prependAuditRecord(records, auditRecord(3), 3);
    records = prependAuditRecord(records, auditRecord(3), 3);
    records = prependAuditRecord(records, auditRecord(4), 3);
    expect(records.map((r) => r.seq)).toEqual([4, 3, 2]);
  });
});
