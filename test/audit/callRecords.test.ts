/**
 * A call's life in as few audit records as durability needs, through a real gate: one record for a
 * call that changes nothing (or is refused), a write-ahead record before a tool with side effects
 * runs and one at its end, a person's decision in its own record. A gate killed while such a tool
 * runs leaves the call open, and the next start ends it as interrupted.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditStore } from '../../main/audit/auditStore';
import { openDatabase } from '../../main/audit/sqlite';
import { callsFromAudit } from '../../main/executor/callHistory';
import type { CallStepsPayload } from '../../shared/audit';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { nextApproval, openGate, storedKinds, type Harness } from '../executor/gateHarness';
import { waitUntil } from '../fixtures/processes';

let harness: Harness | undefined;
const folders: string[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const folder of folders.splice(0)) removeTempFolder(folder);
});

/** The step kinds each stored record of a call holds, record by record. */
function stepsPerRecord(harness: Harness, callId: string): string[][] {
  return harness.gate.audit.recordsOfCall(callId).map((record) => (record.payload as CallStepsPayload).steps.map((step) => step.kind));
}

describe('the records of a call', () => {
  it('are one for a call refused before it ran, holding every step it took', async () => {
    harness = await openGate();
    const refused = await harness.gate.executor.call({ tool: 'echo', arguments: { wrong: 1 } });
    expect(refused.ok).toBe(false);
    expect(storedKinds(harness.gate, refused.meta.callId)).toEqual(['call']);
    expect(stepsPerRecord(harness, refused.meta.callId)).toEqual([['invoked', 'rejected']]);
    expect(harness.gate.audit.verify()).toEqual({ ok: true, records: 1 });
  });

  it('are a write-ahead record before a tool that writes runs, and one at its end', async () => {
    harness = await openGate({ policyMode: 'permissive' });
    const result = await harness.gate.executor.call({ tool: 'write_file', arguments: { path: 'notes.md', content: 'x' } });
    expect(result.ok).toBe(true);
    expect(storedKinds(harness.gate, result.meta.callId)).toEqual(['call-begun', 'call-ended']);
    expect(stepsPerRecord(harness, result.meta.callId)).toEqual([['invoked', 'capability', 'policy', 'started'], ['completed']]);
  });

  it('put a person\'s decision in a record of its own, between the prompt and the run', async () => {
    harness = await openGate();
    const { gate } = harness;
    const prompt = nextApproval(gate);
    const call = gate.executor.call({ tool: 'write_file', arguments: { path: 'asked.md', content: 'y' } });
    gate.approvals.decide((await prompt).approvalId, 'approve');
    const approved = await call;
    expect(approved.ok).toBe(true);
    expect(storedKinds(gate, approved.meta.callId)).toEqual(['call-begun', 'call-step', 'call-step', 'call-ended']);
    expect(stepsPerRecord(harness, approved.meta.callId)).toEqual([
      ['invoked', 'capability', 'policy', 'approval-requested'],
      ['approval-decided'],
      ['started'],
      ['completed'],
    ]);

    const denial = nextApproval(gate);
    const deniedCall = gate.executor.call({ tool: 'write_file', arguments: { path: 'denied.md', content: 'z' } });
    gate.approvals.decide((await denial).approvalId, 'deny');
    const denied = await deniedCall;
    expect(denied.ok).toBe(false);
    expect(stepsPerRecord(harness, denied.meta.callId)).toEqual([['invoked', 'capability', 'policy', 'approval-requested'], ['approval-decided'], ['rejected']]);
    expect(existsSync(join(harness.workspace, 'denied.md'))).toBe(false);
    expect(gate.audit.verify()).toMatchObject({ ok: true, records: 7 });
  });

  it('leave a call killed while its tool runs open with its write-ahead record, and the next start ends it as interrupted', async () => {
    harness = await openGate({ toolModules: [resolve(__dirname, '../fixtures/tools/hostileProcess.mjs')] });
    const { gate, home } = harness;
    // A tool that never answers, stopped by the test once the copy is taken: the call is still open
    // then, however long the copy took.
    const stop = new AbortController();
    const running = gate.executor.call({ tool: 'hold_open', arguments: {} }, { signal: stop.signal });
    // The write-ahead record is committed before the tool is handed the call: a copy of the state
    // folder taken then is the folder a gate killed at that moment leaves.
    const copy = makeTempFolder();
    folders.push(copy);
    mkdirSync(join(copy, 'home'));
    const auditDb = openDatabase(join(home, 'audit.db'), { readOnly: true });
    try {
      await waitUntil(
        () => auditDb.prepare("SELECT kind FROM audit WHERE kind = 'call-begun' AND payload LIKE '%hold_open%'").get() !== undefined,
        'the write-ahead record of hold_open to be committed',
      );
      for (const name of ['audit.db', 'audit.db-wal', 'audit.head']) {
        if (existsSync(join(home, name))) copyFileSync(join(home, name), join(copy, 'home', name));
      }
    } finally {
      auditDb.close();
    }
    stop.abort();
    const ended = await running;
    // Stopped in its process, or withdrawn before its process got it: its write-ahead record is in the log either way.
    expect(ended.error).toMatchObject({ code: 'EDENIED', message: expect.stringMatching(/stopped before it finished|withdrawn before it started/) });

    const restarted = new AuditStore({ path: join(copy, 'home', 'audit.db'), headPath: join(copy, 'home', 'audit.head') });
    try {
      expect(restarted.verify()).toMatchObject({ ok: true, openCalls: [{ callId: ended.meta.callId, lastKind: 'started' }] });
      const written = restarted.recordInterruptedCalls();
      expect(written).toMatchObject([{ callId: ended.meta.callId, kind: 'interrupted', payload: { lastStep: 'started' } }]);
      expect(restarted.recordsOfCall(ended.meta.callId).map((record) => record.kind)).toEqual(['call-begun', 'interrupted']);
      // The Live view's history and the explorer show it as interrupted.
      expect(callsFromAudit(restarted).find((call) => call.callId === ended.meta.callId)).toMatchObject({ status: 'failed', step: 'interrupted', error: { code: 'ECRASH' } });
      expect(restarted.callIndex().row(ended.meta.callId)).toMatchObject({ outcome: 'interrupted', tool: 'hold_open' });
      expect(restarted.verify()).toEqual({ ok: true, records: restarted.lastSeq() });
    } finally {
      restarted.close();
    }
    // The gate that was not killed closed the call with its end.
    expect(storedKinds(gate, ended.meta.callId)).toEqual(['call-begun', 'call-ended']);
  });
});
