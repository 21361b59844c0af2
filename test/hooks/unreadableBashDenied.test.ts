/**
 * Claude Code runs Bash itself, so a line the gate cannot read reaches a person, who judges it by
 * its text. A deny still holds such a line: the real `toolgate hook claude-code`, fed Claude Code's
 * PreToolUse for `rm -rf build $((i))` with the user's `deny: shell_exec(rm *)`, answers deny
 * without raising a prompt (one approved would let Claude Code run the rm), as it does for
 * `rm -rf build`, and an unreadable `cat` of a file a deny of reading holds.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import { approveEveryPrompt, startTestGate, type TestGate } from '../integration/helpers';
import { runHook } from './hookProcesses';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/claude-code');

let gate: TestGate;
const prompts: ApprovalRequest[] = [];

beforeAll(async () => {
  gate = await startTestGate({ userPolicy: { deny: ['shell_exec(rm *)', 'read_file(secrets/**)'] }, claudeCodeBashInGate: false });
  // Anyone asked approves: a prompt here would let the line run.
  approveEveryPrompt(gate.running.backend, prompts);
});

afterAll(async () => {
  await gate?.close();
});

/** Claude Code's PreToolUse for a Bash line in the workspace, and the hook's answer to it. */
async function bashAnswer(command: string): Promise<{ permissionDecision?: string; permissionDecisionReason?: string }> {
  const input = JSON.parse(readFileSync(join(FIXTURES, 'pre-bash.json'), 'utf8').replaceAll('${WORKSPACE}', gate.dirs.workspace)) as { tool_input: { command: string } };
  input.tool_input.command = command;
  const run = await runHook(gate.dirs.home, JSON.stringify(input));
  expect(run.code).toBe(0);
  return run.answer.hookSpecificOutput as { permissionDecision?: string; permissionDecisionReason?: string };
}

describe('a deny holds a Bash line the gate cannot read', () => {
  it.each(['rm -rf build $((i))', 'cat secrets/key $((i))'])('%s is denied, nobody asked', async (command) => {
    const answer = await bashAnswer(command);
    expect(answer.permissionDecision).toBe('deny');
    // Either deny may hold the line (the first is named), and the reason says why it holds it.
    expect(answer.permissionDecisionReason).toMatch(/denied by `(shell_exec\(rm \*\)|read_file\(secrets\/\*\*\))`/);
    expect(answer.permissionDecisionReason).toContain('the line cannot be judged command by command (the command is unreadable: $((i))');
    expect(prompts).toEqual([]);
  });

  it('the readable rm is denied alike', async () => {
    expect((await bashAnswer('rm -rf build')).permissionDecision).toBe('deny');
  });
});
