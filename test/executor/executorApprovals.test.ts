import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bindingHash } from '../../main/executor/executor';
import { snapshotFromAudit } from '../../main/executor/callHistory';
import type { ApprovalRequest } from '../../shared/approval';
import { WAIT_MS } from '../fixtures/processes';
import { auditKinds, nextApproval, openGate, type Harness } from './gateHarness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function gate(approvalTimeoutMs = WAIT_MS) {
  harness = await openGate({ approvalTimeoutMs });
  return harness.gate;
}

const ASKED_AND_RAN = ['invoked', 'capability', 'policy', 'approval-requested', 'approval-decided', 'started', 'completed'];
const ASKED_AND_REFUSED = ['invoked', 'capability', 'policy', 'approval-requested', 'approval-decided', 'rejected'];

describe('executor: calls that need a person', () => {
  it('shows write_file’s diff, and writes the file once approved', async () => {
    const g = await gate();
    writeFileSync(join(harness!.workspace, 'notes.md'), 'old line\n');
    const prompt = nextApproval(g);
    const call = g.executor.call({ tool: 'write_file', arguments: { path: 'notes.md', content: 'new line\n' } });
    const request = await prompt;

    expect(request).toMatchObject({ tool: 'write_file', tier: 'ELEVATED', rule: 'tier:ELEVATED→ask' });
    expect(request.arguments).toEqual({ path: 'notes.md', content: 'new line\n' });
    expect(request.preview).toMatchObject({ kind: 'diff', path: 'notes.md', before: 'old line\n', after: 'new line\n', exists: true });
    expect(request.preview.kind === 'diff' && request.preview.unified).toMatch(/^-old line$[\s\S]*^\+new line$/m);
    const manifest = g.registry.get('write_file')!.tool.manifest;
    expect(request.bindingHash).toBe(bindingHash(manifest, request.arguments));
    // The dry run changed nothing; the call waits for the person.
    expect(readFileSync(join(harness!.workspace, 'notes.md'), 'utf8')).toBe('old line\n');
    expect(g.approvals.list().map((pending) => pending.approvalId)).toEqual([request.approvalId]);
    expect(g.calls.list().find((snapshot) => snapshot.callId === request.callId)?.status).toBe('awaiting-approval');

    g.approvals.decide(request.approvalId, 'approve');
    const result = await call;
    expect(result.ok).toBe(true);
    expect(result.data).toEqual({ path: 'notes.md', bytesWritten: 9, created: false });
    expect(readFileSync(join(harness!.workspace, 'notes.md'), 'utf8')).toBe('new line\n');
    expect(result.meta.callId).toBe(request.callId);
    expect(auditKinds(g, result.meta.callId)).toEqual(ASKED_AND_RAN);
    const asked = g.audit.forCall(result.meta.callId)[3]!;
    expect(asked.payload).toMatchObject({ approvalId: request.approvalId, bindingHash: request.bindingHash, preview: { kind: 'diff', added: 1, removed: 1 } });
    expect(g.audit.verify().ok).toBe(true);
  });

  it('refuses to run when the file changed after the person saw its diff, and keeps the newer file', async () => {
    const g = await gate();
    const file = join(harness!.workspace, 'notes.md');
    writeFileSync(file, 'version the person saw\n');
    const prompt = nextApproval(g);
    const call = g.executor.call({ tool: 'write_file', arguments: { path: 'notes.md', content: 'agent version\n' } });
    const request = await prompt;
    writeFileSync(file, 'someone else edited it meanwhile\n');
    g.approvals.decide(request.approvalId, 'approve');
    const result = await call;
    expect(result.error?.code).toBe('EDENIED');
    expect(result.error?.message).toContain('no longer what was approved');
    expect(readFileSync(file, 'utf8')).toBe('someone else edited it meanwhile\n');
    expect(g.audit.forCall(request.callId)[3]!.payload).toMatchObject({ previewHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(g.audit.verify().ok).toBe(true);
  });

  it('a denial is EDENIED with the person’s reason, and the file stays as it was', async () => {
    const g = await gate();
    writeFileSync(join(harness!.workspace, 'keep.txt'), 'precious');
    const prompt = nextApproval(g);
    const call = g.executor.call({ tool: 'write_file', arguments: { path: 'keep.txt', content: 'clobbered' } });
    g.approvals.decide((await prompt).approvalId, 'deny', 'not that file');
    const result = await call;
    expect(result.error?.code).toBe('EDENIED');
    expect(result.error?.message).toContain('a person denied it: not that file');
    expect(result.error?.details).toEqual({ outcome: 'denied' });
    expect(readFileSync(join(harness!.workspace, 'keep.txt'), 'utf8')).toBe('precious');
    expect(auditKinds(g, result.meta.callId)).toEqual(ASKED_AND_REFUSED);
    expect(g.audit.forCall(result.meta.callId)[4]!.payload).toMatchObject({ outcome: 'denied', reason: 'not that file' });
  });

  it('a prompt nobody answers expires into EDENIED and nothing is written', async () => {
    const g = await gate(150);
    const result = await g.executor.call({ tool: 'write_file', arguments: { path: 'late.txt', content: 'x' } });
    expect(result.error?.code).toBe('EDENIED');
    expect(result.error?.message).toContain('no one approved it in time');
    expect(result.error?.details).toEqual({ outcome: 'expired' });
    expect(existsSync(join(harness!.workspace, 'late.txt'))).toBe(false);
    expect(auditKinds(g, result.meta.callId)).toEqual(ASKED_AND_REFUSED);
    expect(g.approvals.list()).toEqual([]);
  });

  it('counts a prompt’s wait from when it was asked, so a gate held up before recording it still shows the whole timeout', async () => {
    const timeoutMs = 150;
    const g = await gate(timeoutMs);
    // Something on the gate's thread (a slow listener, a pause of the process) holds it past the timeout between asking and recording.
    let asked: ApprovalRequest | undefined;
    g.events.subscribe('approvalRequested', (request) => {
      asked = request;
      const until = performance.now() + timeoutMs + 50;
      while (performance.now() < until);
    });
    const result = await g.executor.call({ tool: 'write_file', arguments: { path: 'held.txt', content: 'x' } });
    expect(result.error?.details).toEqual({ outcome: 'expired' });
    const records = g.audit.forCall(result.meta.callId);
    const [requested, decided] = [records.find((r) => r.kind === 'approval-requested')!, records.find((r) => r.kind === 'approval-decided')!];
    expect(requested.time).toBe(asked!.requestedAt);
    expect(Date.parse(decided.time)).toBeGreaterThanOrEqual(Date.parse(asked!.expiresAt));
    const history = snapshotFromAudit(records)!;
    expect(history.waitedMs).toBeGreaterThanOrEqual(timeoutMs);
    expect(g.calls.list().find((call) => call.callId === result.meta.callId)?.waitedMs).toBeGreaterThanOrEqual(timeoutMs);
  });

  it('a RESTRICTED tool without a dry run asks with a "none" preview and runs once approved', async () => {
    const g = await gate();
    const prompt = nextApproval(g);
    const call = g.executor.call({ tool: 'restricted_no_dry_run', arguments: { note: 'approved run' } });
    const request = await prompt;
    expect(request.rule).toBe('tier:RESTRICTED→ask');
    expect(request.preview).toEqual({ kind: 'none', reason: expect.stringContaining('has no dry run') });
    expect(existsSync(join(harness!.workspace, 'restricted-ran.txt'))).toBe(false);
    g.approvals.decide(request.approvalId, 'approve');
    expect((await call).data).toEqual({ ran: true });
    expect(readFileSync(join(harness!.workspace, 'restricted-ran.txt'), 'utf8')).toBe('approved run');
  });

  it('closing the gate denies a waiting prompt', async () => {
    const g = await gate();
    const prompt = nextApproval(g);
    const call = g.executor.call({ tool: 'write_file', arguments: { path: 'x.txt', content: 'x' } });
    await prompt;
    g.approvals.close();
    const result = await call;
    expect(result.error?.code).toBe('EDENIED');
    expect(result.error?.message).toContain('the gate is shutting down');
    expect(existsSync(join(harness!.workspace, 'x.txt'))).toBe(false);
  });
});
