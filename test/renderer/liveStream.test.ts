/**
 * Live under a steady stream of calls, as the gate sends them (a frame of events every 30 ms):
 * one store update per animation frame, the newest calls kept and shown first, each call in its
 * final state, and the older ones let go.
 */
import { describe, expect, it } from 'vitest';
import type { CallSnapshot, CallStatus } from '../../shared/call';
import { CALLS_CAP } from '../../renderer/store/consoleState';
import { callsInOrder } from '../../renderer/store/reducers';
import { floodedSync } from './floodedSync';
import { auditRecord, call } from './fixtures';

const STEPS: CallStatus[] = ['checking', 'running', 'completed'];

function snapshot(index: number, status: CallStatus): CallSnapshot {
  return call(`call-${index}`, { status, step: status, startedAt: new Date(Date.UTC(2026, 10, 23) + index * 10).toISOString() });
}

describe('Live under a stream of calls', () => {
  it('takes each frame of events as one store update, however many calls it holds', () => {
    const { fake, runFrames, updates, sync } = floodedSync();
    // Three calls in a frame, each through its three steps and three records.
    for (let frame = 0; frame < 100; frame++) {
      for (let index = frame * 3; index < frame * 3 + 3; index++) {
        for (const status of STEPS) {
          fake.emit('callUpdated', snapshot(index, status));
          fake.emit('auditAppended', auditRecord(index * 3 + STEPS.indexOf(status) + 1));
        }
      }
      runFrames();
    }
    expect(updates()).toBe(100);
    sync.stop();
  });

  it(`keeps the newest ${CALLS_CAP.toLocaleString('en')} calls, newest first, each in its final state`, () => {
    const { fake, store, runFrames, sync } = floodedSync();
    const total = CALLS_CAP + 2_500;
    for (let index = 0; index < total; index++) {
      for (const status of STEPS) fake.emit('callUpdated', snapshot(index, status));
      if (index % 50 === 49) runFrames();
    }
    runFrames();
    const shown = callsInOrder(store.getState().calls);
    expect(shown).toHaveLength(CALLS_CAP);
    expect(shown[0]!.callId).toBe(`call-${total - 1}`);
    expect(shown.at(-1)!.callId).toBe(`call-${total - CALLS_CAP}`);
    expect(shown.every((kept) => kept.status === 'completed')).toBe(true);
    // The calls that dropped off are let go, not kept out of sight.
    expect(Object.keys(store.getState().calls.byId)).toHaveLength(CALLS_CAP);
    sync.stop();
  });

  it("shows a call's last update when its steps arrive in separate frames", () => {
    const { fake, store, runFrames, sync } = floodedSync();
    fake.emit('callUpdated', snapshot(1, 'checking'));
    runFrames();
    fake.emit('callUpdated', snapshot(1, 'running'));
    fake.emit('callUpdated', snapshot(2, 'checking'));
    runFrames();
    fake.emit('callUpdated', snapshot(1, 'completed'));
    runFrames();
    expect(callsInOrder(store.getState().calls).map((kept) => `${kept.callId} ${kept.status}`)).toEqual(['call-2 checking', 'call-1 completed']);
    sync.stop();
  });

  it('marks the chain check stale once, not anew with every frame of records', () => {
    const { fake, store, runFrames, sync } = floodedSync();
    fake.emit('auditAppended', auditRecord(1));
    runFrames();
    const verify = store.getState().verify;
    expect(verify.stale).toBe(true);
    fake.emit('auditAppended', auditRecord(2));
    runFrames();
    // The same object: the Audit view, which reads it, is not redrawn for the stream.
    expect(store.getState().verify).toBe(verify);
    sync.stop();
  });
});
