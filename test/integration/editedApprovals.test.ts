/**
 * Approving with edits, through a real gate driven by the official MCP client: the person's edit
 * (arguments, the new content, or hunks left out) is checked and judged again, runs instead of the
 * agent's call, is kept in the audit next to the original, and the agent is told. Edits that would
 * widen the call (a deny rule, a path outside the workspace or into a protected one, a secret it
 * did not have, a higher tier, a check turned into a write) are refused and the prompt stays open.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import type { GateOptions } from '../../main/gate/createGate';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { writeSecretsFile } from '../../main/secrets/secretsFile';
import { statePaths } from '../../main/state/paths';
import { bindingHash } from '../../main/executor/executor';
import { callIdOf, connectMcp, makeTempDirs, nextApproval, readToken, textOf, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

let dirs: TempDirs | undefined;
const clients: Client[] = [];
let running: RunningGate | undefined;

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await running?.close();
  dirs?.remove();
  running = undefined;
  dirs = undefined;
});

async function open(options: Partial<GateOptions> = {}) {
  dirs = makeTempDirs();
  const managed = join(dirs.outside, 'managed.json');
  writeFileSync(managed, JSON.stringify({ deny: [{ rule: 'write_file(private/**)', reason: 'private notes stay by hand' }] }));
  running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: WAIT_MS, poolSize: 1, managedPolicyFile: managed, ...options });
  const agent = await connectMcp(running.mcpUrl, readToken(dirs.home));
  clients.push(agent);
  const gate = running;
  const workspace = dirs.workspace;
  /** Starts a call and waits for its prompt. */
  async function ask(name: string, args: Record<string, unknown>): Promise<{ request: ApprovalRequest; result: ReturnType<Client['callTool']> }> {
    const prompt = nextApproval(gate.backend);
    const result = agent.callTool({ name, arguments: args });
    return { request: await prompt, result };
  }
  return { handlers: gate.backend.handlers, gate: gate.gate, workspace, ask, file: (path: string) => readFileSync(join(workspace, path), 'utf8') };
}

const LINES = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join('\n') + '\n';

describe('approving with edits', () => {
  it('an edited write runs with the edit; the agent is told how its call changed; the audit keeps original, edit and who made it', async () => {
    const { handlers, gate, ask, file } = await open();
    const { request, result } = await ask('write_file', { path: 'notes.md', content: 'draft from the agent\n' });

    const check = await handlers.checkEdit({ approvalId: request.approvalId, edit: { content: 'the person’s version\nsecond line\n' } });
    expect(check.problems).toEqual([]);
    expect(check.summary?.changes).toEqual(['content: changed (+2 \u22121 lines)']);
    expect(check.policy).toMatchObject({ decision: 'ask', rule: 'tier:ELEVATED→ask' });

    const outcome = await handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve', edit: { content: 'the person’s version\nsecond line\n' } });
    expect(outcome).toMatchObject({ outcome: 'approved', edited: { changes: ['content: changed (+2 \u22121 lines)'] } });
    const done = await result;
    expect(done.isError).toBe(false);
    expect(file('notes.md')).toBe('the person’s version\nsecond line\n');
    expect(textOf(done)).toContain('A person edited this call before approving it, and it ran as edited: content: changed (+2 \u22121 lines)');

    const records = gate.audit.forCall(callIdOf(done));
    const decided = records.find((record) => record.kind === 'approval-decided')!.payload as Record<string, any>;
    expect(decided.edit).toMatchObject({
      by: 'person',
      original: { path: 'notes.md', content: 'draft from the agent\n' },
      edited: { path: 'notes.md', content: 'the person’s version\nsecond line\n' },
      changes: ['content: changed (+2 \u22121 lines)'],
      bindingHash: bindingHash(gate.registry.get('write_file')!.tool.manifest, { path: 'notes.md', content: 'the person’s version\nsecond line\n' }),
    });
    expect(decided.edit.bindingHash).not.toBe(request.bindingHash);
    expect(records.map((record) => record.kind)).toEqual(['invoked', 'capability', 'policy', 'approval-requested', 'approval-decided', 'started', 'completed']);
  });

  it('leaving one hunk of two out writes the other only, and the agent is told which hunk with its lines', async () => {
    const { handlers, workspace, ask, file } = await open();
    writeFileSync(join(workspace, 'list.txt'), LINES);
    const proposed = LINES.replace('line 3\n', 'line 3\nADDED\n').replace('line 25\n', 'CHANGED 25\n');
    const { request, result } = await ask('write_file', { path: 'list.txt', content: proposed });

    await handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve', edit: { rejectedHunks: [2] } });
    const done = await result;
    expect(done.isError).toBe(false);
    expect(file('list.txt')).toBe(LINES.replace('line 3\n', 'line 3\nADDED\n'));
    expect(textOf(done)).toContain('left out hunk 2 (file lines 21\u201329, proposed lines 22\u201330) @@ -21,9 +22,9 @@; only the other hunks were written');
  });

  it('edit_file: the new content typed in the right pane is written as a patch of the file', async () => {
    const { handlers, workspace, ask, file } = await open();
    writeFileSync(join(workspace, 'app.js'), 'const a = 1;\nconst b = 2;\n');
    const { request, result } = await ask('edit_file', { path: 'app.js', strategy: 'snippet', old: 'const a = 1;', new: 'const a = 10;' });
    await handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve', edit: { content: 'const a = 100;\nconst b = 2;\n' } });
    expect((await result).isError).toBe(false);
    expect(file('app.js')).toBe('const a = 100;\nconst b = 2;\n');
  });

  it('an edit a deny rule covers is refused with the rule’s reason; the prompt stays and can still be answered', async () => {
    const { handlers, ask, workspace } = await open();
    const { request, result } = await ask('write_file', { path: 'notes/today.md', content: 'x\n' });
    const edit = { arguments: { path: 'private/diary.md', content: 'x\n' } };
    const check = await handlers.checkEdit({ approvalId: request.approvalId, edit });
    expect(check.problems).toEqual([{ field: 'path', problem: expect.stringContaining('private notes stay by hand') }]);
    await expect(handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve', edit })).rejects.toMatchObject({
      code: 'EDENIED',
      message: expect.stringContaining('denied by policy'),
    });
    expect((await handlers.listApprovals({})).map((pending) => pending.approvalId)).toEqual([request.approvalId]);
    await handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny', reason: 'no' });
    expect((await result).isError).toBe(true);
    expect(() => readFileSync(join(workspace, 'private/diary.md'))).toThrow();
  });

  it('edits that would widen the call are refused, each naming its field', async () => {
    const { handlers, ask } = await open();
    const { request, result } = await ask('write_file', { path: 'a.md', content: 'x\n' });
    const problems = async (edit: Record<string, unknown>) => (await handlers.checkEdit({ approvalId: request.approvalId, edit: { arguments: edit } })).problems;

    expect(await problems({ path: 'a.md', content: 42 })).toEqual([{ field: 'content', problem: expect.stringContaining('expected string') }]);
    expect(await problems({ path: 'a.md' })).toEqual([{ field: 'content', problem: expect.any(String) }]);
    expect(await problems({ path: '../outside.md', content: 'x\n' })).toEqual([{ field: 'path', problem: expect.stringMatching(/outside the workspace|leaves the workspace/) }]);
    expect(await problems({ path: '.git/hooks/pre-commit', content: 'x\n' })).toEqual([{ field: 'path', problem: expect.stringContaining('.git') }]);
    expect(await problems({ path: 'a.md', content: 'token=$ENV.GITHUB_TOKEN\n' })).toEqual([
      { field: 'content', problem: expect.stringContaining('$ENV.GITHUB_TOKEN, which the call did not send in this argument') },
    ]);
    expect(await problems({ path: 'a.md', content: 'x\n' })).toEqual([{ field: '(arguments)', problem: expect.stringContaining('changes nothing') }]);
    await expect(
      handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve', edit: { arguments: { path: 'a.md', content: 'y\n' } }, scope: { kind: 'gate' } as never }),
    ).rejects.toMatchObject({ code: 'EVALIDATION', message: expect.stringContaining('for this call only') });
    await handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny' });
    expect((await result).isError).toBe(true);
  });

  it('an edit may not send a call’s secrets to another host, even one the gate grants', async () => {
    const { handlers, ask } = await open({ grants: ['fs:read', 'fs:write', 'net:read:api.example.com', 'net:read:other.example.com'] });
    writeSecretsFile(statePaths(dirs!.home).secrets, { API_TOKEN: 'a-long-stored-token' });
    const { request, result } = await ask('http_fetch', { url: 'https://api.example.com/items?token=$ENV.API_TOKEN' });
    expect(request.secrets).toEqual(['API_TOKEN']);
    const moved = await handlers.checkEdit({ approvalId: request.approvalId, edit: { arguments: { url: 'https://other.example.com/items?token=$ENV.API_TOKEN' } } });
    expect(moved.problems).toEqual([{ field: 'url', problem: expect.stringContaining('may not send them to another host') }]);
    const samePlace = await handlers.checkEdit({ approvalId: request.approvalId, edit: { arguments: { url: 'https://api.example.com/other?token=$ENV.API_TOKEN' } } });
    expect(samePlace).toMatchObject({ problems: [], summary: { changes: ['url: "https://api.example.com/items?token=$ENV.API_TOKEN" → "https://api.example.com/other?token=$ENV.API_TOKEN"'] } });
    await handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny' });
    expect((await result).isError).toBe(true);
  });

  it('an edit may not raise the call’s tier, nor turn edit_file’s check into a write', async () => {
    const { handlers, workspace, ask } = await open();
    writeFileSync(join(workspace, 'old.txt'), 'x');
    const deletion = await ask('delete_path', { path: 'old.txt' });
    const raised = await handlers.checkEdit({ approvalId: deletion.request.approvalId, edit: { arguments: { path: 'old.txt', recursive: true } } });
    expect(raised.problems).toEqual([{ field: 'recursive', problem: expect.stringContaining('raises the call from ELEVATED to RESTRICTED') }]);
    await handlers.decideApproval({ approvalId: deletion.request.approvalId, decision: 'deny' });
    await deletion.result;

    const patch = '--- a/old.txt\n+++ b/old.txt\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n';
    const check = await ask('edit_file', { path: 'old.txt', strategy: 'check', patch });
    const turned = await handlers.checkEdit({ approvalId: check.request.approvalId, edit: { arguments: { path: 'old.txt', strategy: 'apply', patch } } });
    expect(turned.problems).toEqual([{ field: 'strategy', problem: expect.stringContaining('an edit may not make it write') }]);
    const content = await handlers.checkEdit({ approvalId: check.request.approvalId, edit: { content: 'y' } });
    expect(content.problems).toEqual([{ field: '(content)', problem: expect.stringContaining('cannot be edited here') }]);
    await handlers.decideApproval({ approvalId: check.request.approvalId, decision: 'deny' });
    expect((await check.result).isError).toBe(true);
  });

  it('the edited call is bound to its own preview: a file changed after the approval, before the run, is refused by the tool process’s check', async () => {
    const { gate, workspace, ask, file } = await open();
    writeFileSync(join(workspace, 'notes.md'), 'first\n');
    const { request, result } = await ask('write_file', { path: 'notes.md', content: 'agent\n' });
    // What the console's Approve does, with the file changed between the gate's preview of the edit and the run.
    const revised = await gate.approvals.waiting(request.approvalId).subject!.reviser!.revise({ content: 'person\n' });
    expect(revised.previewHash).toBeDefined();
    writeFileSync(join(workspace, 'notes.md'), 'changed meanwhile\n');
    gate.approvals.decide(request.approvalId, 'approve', undefined, {}, revised);
    const done = await result;
    expect(done.isError).toBe(true);
    expect(textOf(done)).toContain('no longer what was approved (the target changed meanwhile)');
    // Told of the edit, never that it ran as edited.
    expect(textOf(done)).toContain('and the edited call failed: see the error');
    expect(textOf(done)).not.toContain('ran as edited');
    expect(file('notes.md')).toBe('changed meanwhile\n');
  });

  it('an edit of a file that changed on disk after the prompt was shown is refused like an unedited one: nothing is written, the agent is told', async () => {
    const { handlers, workspace, ask, file } = await open();
    writeFileSync(join(workspace, 'notes.md'), 'first\n');
    const { request, result } = await ask('write_file', { path: 'notes.md', content: 'agent\n' });
    writeFileSync(join(workspace, 'notes.md'), 'changed by someone else\n');
    await handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve', edit: { content: 'person\n' } });
    const done = await result;
    expect(done.isError).toBe(true);
    expect(textOf(done)).toContain('changed on disk after the prompt was shown');
    expect(textOf(done)).not.toContain('ran as edited');
    expect(done._meta?.['toolgate/edited']).toBeUndefined();
    expect(file('notes.md')).toBe('changed by someone else\n');
  });
});
