import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GateOptions } from '../../main/gate/createGate';
import { auditKinds, nextApproval, openGate, type Harness } from './gateHarness';

// edit_file and delete_path run in real tool processes, as built-ins.
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function open(options: Partial<GateOptions> = {}): Promise<Harness> {
  return openGate(options);
}

describe('real gate: protected paths', () => {
  it('refuses write_file and edit_file on a protected path under the plain fs:write, before anyone is asked', async () => {
    harness = await open();
    const g = harness.gate;
    mkdirSync(join(harness.workspace, '.vscode'));
    writeFileSync(join(harness.workspace, '.vscode', 'tasks.json'), '{}\n');
    let asked = false;
    g.events.subscribe('approvalRequested', () => (asked = true));

    const written = await g.executor.call({ tool: 'write_file', arguments: { path: '.vscode/tasks.json', content: '{"evil":1}' } });
    expect(written.ok).toBe(false);
    expect(written.error).toMatchObject({ code: 'EPERMISSION', details: { rule: 'protected:.vscode', grant: 'fs:write:.vscode/**' } });
    expect(written.error!.message).toContain('--grant fs:write:.vscode/**');
    expect(auditKinds(g, written.meta.callId)).toEqual(['invoked', 'capability', 'rejected']);

    const edited = await g.executor.call({
      tool: 'edit_file',
      arguments: { path: '.vscode/tasks.json', strategy: 'snippet', old: '{}', new: '{"evil":1}' },
    });
    expect(edited.error).toMatchObject({ code: 'EPERMISSION', details: { rule: 'protected:.vscode' } });
    const deleted = await g.executor.call({ tool: 'delete_path', arguments: { path: '.vscode', recursive: true } });
    expect(deleted.error?.code).toBe('EPERMISSION');
    expect(asked).toBe(false);
    expect(readFileSync(join(harness.workspace, '.vscode', 'tasks.json'), 'utf8')).toBe('{}\n');
  });

  it('allows it with an explicit grant, still asking a person', async () => {
    harness = await open({ grants: ['fs:read', 'fs:write', 'fs:write:.vscode/**'] });
    const g = harness.gate;
    mkdirSync(join(harness.workspace, '.vscode'));
    writeFileSync(join(harness.workspace, '.vscode', 'tasks.json'), '{}\n');
    const prompt = nextApproval(g);
    const call = g.executor.call({
      tool: 'edit_file',
      arguments: { path: '.vscode/tasks.json', strategy: 'snippet', old: '{}', new: '{"ok":true}' },
    });
    const request = await prompt;
    expect(request).toMatchObject({ tool: 'edit_file', rule: 'tier:ELEVATED→ask', preview: { kind: 'diff', path: '.vscode/tasks.json' } });
    g.approvals.decide(request.approvalId, 'approve');
    expect((await call).ok).toBe(true);
    expect(readFileSync(join(harness.workspace, '.vscode', 'tasks.json'), 'utf8')).toBe('{"ok":true}\n');
    // The grant covers .vscode only.
    const git = await g.executor.call({ tool: 'write_file', arguments: { path: '.git/hooks/pre-commit', content: 'x' } });
    expect(git.error).toMatchObject({ code: 'EPERMISSION', details: { rule: 'protected:.git' } });
  });
});

describe('real gate: delete_path and edit_file', () => {
  it('a recursive delete asks at RESTRICTED, the policy record says so, and the prompt lists what goes', async () => {
    harness = await open();
    const g = harness.gate;
    mkdirSync(join(harness.workspace, 'build', 'assets'), { recursive: true });
    writeFileSync(join(harness.workspace, 'build', 'app.js'), '12345');
    const prompt = nextApproval(g);
    const call = g.executor.call({ tool: 'delete_path', arguments: { path: 'build', recursive: true } });
    const request = await prompt;
    expect(request.rule).toBe('tier:RESTRICTED(recursive)→ask');
    expect(request.preview).toMatchObject({ kind: 'delete', path: 'build', totalEntries: 3, totalBytes: 5 });
    g.approvals.decide(request.approvalId, 'approve');
    const result = await call;
    expect(result).toMatchObject({ ok: true, data: { path: 'build', type: 'directory', deletedEntries: 3 } });
    expect(existsSync(join(harness.workspace, 'build'))).toBe(false);
    const policy = g.audit.forCall(result.meta.callId).find((record) => record.kind === 'policy')!;
    expect(policy.payload).toMatchObject({ decision: 'ask', rule: 'tier:RESTRICTED(recursive)→ask' });
  });

  it('a delete of a directory without recursive is refused at its preview; nobody is asked', async () => {
    harness = await open();
    const g = harness.gate;
    mkdirSync(join(harness.workspace, 'build'));
    let asked = false;
    g.events.subscribe('approvalRequested', () => (asked = true));
    const result = await g.executor.call({ tool: 'delete_path', arguments: { path: 'build' } });
    expect(result.error?.code).toBe('EVALIDATION');
    expect(result.error?.message).toContain('recursive: true');
    expect(asked).toBe(false);
    expect(existsSync(join(harness.workspace, 'build'))).toBe(true);
  });

  it('a patch that does not apply is refused before anyone is asked and leaves the file byte-identical', async () => {
    harness = await open();
    const g = harness.gate;
    const original = 'one\ntwo\nthree\n';
    writeFileSync(join(harness.workspace, 'notes.txt'), original);
    const patch = '--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n one\n-TWO\n+2\n three\n';
    const result = await g.executor.call({ tool: 'edit_file', arguments: { path: 'notes.txt', strategy: 'apply', patch } });
    expect(result.error?.code).toBe('EVALIDATION');
    expect(result.error?.message).toContain('hunk 1 of 1');
    expect(readFileSync(join(harness.workspace, 'notes.txt'), 'utf8')).toBe(original);

    const prompt = nextApproval(g);
    const good = g.executor.call({ tool: 'edit_file', arguments: { path: 'notes.txt', strategy: 'apply', patch: patch.replace('-TWO', '-two') } });
    g.approvals.decide((await prompt).approvalId, 'approve');
    expect((await good).ok).toBe(true);
    expect(readFileSync(join(harness.workspace, 'notes.txt'), 'utf8')).toBe('one\n2\nthree\n');
  });
});
