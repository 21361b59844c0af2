/**
 * A log written when every step of a call was a record of its own (invoked → capability → policy →
 * approval → started → completed) still verifies and still shows, beside the calls a gate of today
 * adds to it as records of several steps: in verify, the explorer and its search, the detail pane,
 * the Live view's history, export and OTLP spans; a call it left open is ended as interrupted.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditStore } from '../../main/audit/auditStore';
import { callDetail } from '../../main/audit/callDetail';
import { iterateCalls } from '../../main/audit/explorerQuery';
import { exportChunks, withRecords } from '../../main/audit/exportCalls';
import { callSpan } from '../../main/audit/otlpSpans';
import { callsFromAudit } from '../../main/executor/callHistory';
import { createGate } from '../../main/gate/createGate';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { toolgate } from './auditFixture';

let root: string | undefined;
afterEach(() => {
  if (root) removeTempFolder(root);
  root = undefined;
});

/** Writes two calls the way a gate did before a record held several steps: one a person approved and that ran, one the gate stopped in. */
function writeOldShapeLog(home: string): void {
  const store = new AuditStore({ path: join(home, 'audit.db'), headPath: join(home, 'audit.head') });
  try {
    const asked = 'old-approved-call';
    store.append({ callId: asked, kind: 'invoked', payload: { tool: 'write_file', source: 'mcp', agentSession: 'old-session', arguments: { path: 'plan.md', content: 'quartz lantern' } } });
    store.append({ callId: asked, kind: 'capability', payload: { allowed: true } });
    store.append({ callId: asked, kind: 'policy', payload: { decision: 'ask', rule: 'tier:ELEVATED→ask', reason: 'ELEVATED asks', tier: 'ELEVATED' } });
    store.append({ callId: asked, kind: 'approval-requested', payload: { approvalId: 'a1', bindingHash: 'b', expiresAt: '2026-01-01T00:00:00.000Z', preview: { kind: 'none' } } });
    store.append({ callId: asked, kind: 'approval-decided', payload: { outcome: 'approved', reason: 'looks right' } });
    store.append({ callId: asked, kind: 'started', payload: { tool: 'write_file', version: '1.0.0', inputHash: 'i' } });
    store.append({ callId: asked, kind: 'completed', payload: { responseHash: 'r', output: { path: 'plan.md', bytesWritten: 14 } } });
    const open = 'old-open-call';
    store.append({ callId: open, kind: 'invoked', payload: { tool: 'echo', source: 'mcp', arguments: { text: 'left running' } } });
    store.append({ callId: open, kind: 'policy', payload: { decision: 'allow', rule: 'tier:SAFE→allow', reason: 'SAFE', tier: 'SAFE' } });
    store.append({ callId: open, kind: 'started', payload: { tool: 'echo', version: '1.0.0' } });
  } finally {
    store.close();
  }
}

describe('a log of one record per step', () => {
  it('verifies, shows in the explorer, Live, export and spans, and goes on with calls of several steps per record', async () => {
    root = makeTempFolder();
    const home = join(root, 'home');
    mkdirSync(home);
    mkdirSync(join(root, 'workspace'));
    writeOldShapeLog(home);
    expect(toolgate(home, 'audit', 'verify')).toMatchObject({ code: 0, stdout: expect.stringContaining('1 call has no end record') });

    // A gate of today starts on it: the call left open is ended, and a new call is one record.
    const gate = await createGate({ home, workspace: join(root, 'workspace') });
    let newCallId: string;
    try {
      // As the gate's start does before it serves.
      gate.audit.recordInterruptedCalls();
      const result = await gate.executor.call({ tool: 'echo', arguments: { text: 'amber harbour' }, source: 'test' });
      expect(result.ok).toBe(true);
      newCallId = result.meta.callId;
    } finally {
      await gate.close();
    }
    expect(toolgate(home, 'audit', 'verify')).toMatchObject({ code: 0, stdout: 'audit log intact: 12 records verified\n' });

    const store = new AuditStore({ path: join(home, 'audit.db'), headPath: join(home, 'audit.head'), readonly: true });
    try {
      expect(store.recordsOfCall('old-open-call').map((record) => record.kind)).toEqual(['invoked', 'policy', 'started', 'interrupted']);
      expect(store.recordsOfCall(newCallId).map((record) => record.kind)).toEqual(['call']);

      const rows = [...iterateCalls(store, {})];
      expect(rows.map((row) => [row.callId, row.outcome])).toEqual([
        [newCallId, 'completed'],
        ['old-open-call', 'interrupted'],
        ['old-approved-call', 'completed'],
      ]);
      expect(rows[2]).toMatchObject({ tool: 'write_file', decision: 'ask', decider: 'person', tier: 'ELEVATED', session: 'old-session' });
      expect([...iterateCalls(store, { text: 'quartz' })].map((row) => row.callId)).toEqual(['old-approved-call']);
      expect([...iterateCalls(store, { text: 'amber harbour' })].map((row) => row.callId)).toEqual([newCallId]);

      const oldSteps = ['invoked', 'capability', 'policy', 'approval-requested', 'approval-decided', 'started', 'completed'];
      expect(callDetail(store, 'old-approved-call')!.records.map((record) => record.kind)).toEqual(oldSteps);
      expect(callDetail(store, newCallId)!.records.map((record) => record.kind)).toEqual(['invoked', 'capability', 'policy', 'started', 'completed']);

      const live = callsFromAudit(store);
      expect(live.map((call) => [call.callId, call.status])).toEqual([
        [newCallId, 'completed'],
        ['old-open-call', 'failed'],
        ['old-approved-call', 'completed'],
      ]);
      expect(live[2]).toMatchObject({ decidedBy: { by: 'person' }, arguments: { path: 'plan.md', content: 'quartz lantern' } });

      const exported = [...exportChunks(withRecords(rows, (callId) => store.forCall(callId)), { format: 'jsonl', content: true })].map((line) => JSON.parse(line) as { callId: string; records: Array<{ kind: string }>; arguments?: unknown });
      expect(exported[2]).toMatchObject({ callId: 'old-approved-call', arguments: { path: 'plan.md', content: 'quartz lantern' } });
      expect(exported[2]!.records.map((record) => record.kind)).toEqual(oldSteps);
      expect(exported[0]!.records.map((record) => record.kind)).toEqual(['invoked', 'capability', 'policy', 'started', 'completed']);

      const span = callSpan({ row: rows[2]!, records: store.forCall('old-approved-call') }, { content: false });
      expect(span.events.map((event) => event.name)).toEqual(oldSteps);
    } finally {
      store.close();
    }
  });
});
