/**
 * An edit made at a prompt never widens the call, in process: on a gate built in this process (its
 * console backend called directly, no HTTP), an edit leaving the workspace, entering a protected
 * path or adding a placeholder is named by field and refused, and an edit a deny
 * rule covers is refused with the rule while the prompt stays open for an answer.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import type { ToolResult } from '../../shared/result';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { openGate, type Harness } from './gateHarness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Starts a call that waits at its prompt; the prompt and the call's result to come. */
async function asked(tool: string, args: Record<string, unknown>): Promise<{ request: ApprovalRequest; result: Promise<ToolResult> }> {
  const prompt = new Promise<ApprovalRequest>((resolvePrompt) => {
    const unsubscribe = harness!.gate.backend.subscribe('approvalRequested', (request) => {
      unsubscribe();
      resolvePrompt(request);
    });
  });
  const result = harness!.gate.executor.call({ tool, arguments: args });
  return { request: await prompt, result };
}

describe('an edit at the prompt', () => {
  it('may not leave the workspace, enter a protected path or add a placeholder: each is named by its field', async () => {
    harness = await openGate();
    const { handlers } = harness.gate.backend;
    const write = await asked('write_file', { path: 'a.md', content: 'x\n' });
    const problems = async (approvalId: string, edit: Record<string, unknown>) => (await handlers.checkEdit({ approvalId, edit: { arguments: edit } })).problems;
    expect(await problems(write.request.approvalId, { path: '../outside.md', content: 'x\n' })).toEqual([{ field: 'path', problem: expect.stringMatching(/outside the workspace|leaves the workspace/) }]);
    expect(await problems(write.request.approvalId, { path: '.git/hooks/pre-commit', content: 'x\n' })).toEqual([{ field: 'path', problem: expect.stringContaining('.git') }]);
    expect(await problems(write.request.approvalId, { path: 'a.md', content: '$ENV.API_TOKEN\n' })).toEqual([
      { field: 'content', problem: expect.stringContaining('$ENV.API_TOKEN, which the call did not send in this argument') },
    ]);
    await expect(
      handlers.decideApproval({ approvalId: write.request.approvalId, decision: 'approve', edit: { arguments: { path: '../outside.md', content: 'x\n' } } }),
    ).rejects.toMatchObject({ code: 'EVALIDATION' });
    await handlers.decideApproval({ approvalId: write.request.approvalId, decision: 'deny' });
    expect((await write.result).error?.code).toBe('EDENIED');
  });

  it('that a deny rule covers is refused with the rule, and the prompt stays to be answered', async () => {
    const folder = makeTempFolder();
    const managed = join(folder, 'managed.json');
    writeFileSync(managed, JSON.stringify({ deny: [{ rule: 'write_file(private/**)', reason: 'private notes stay by hand' }] }));
    try {
      harness = await openGate({ managedPolicyFile: managed });
      const { handlers } = harness.gate.backend;
      const { request, result } = await asked('write_file', { path: 'notes/today.md', content: 'x\n' });
      const edit = { arguments: { path: 'private/diary.md', content: 'x\n' } };
      expect((await handlers.checkEdit({ approvalId: request.approvalId, edit })).problems).toEqual([{ field: 'path', problem: expect.stringContaining('private notes stay by hand') }]);
      await expect(handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve', edit })).rejects.toMatchObject({ code: 'EDENIED' });
      expect((await handlers.listApprovals({})).map((pending) => pending.approvalId)).toEqual([request.approvalId]);
      await handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny', reason: 'no' });
      expect((await result).error?.code).toBe('EDENIED');
      expect(existsSync(join(harness.workspace, 'private', 'diary.md'))).toBe(false);
    } finally {
      removeTempFolder(folder);
    }
  });
});
