/**
 * `~user` through the real `toolgate hook claude-code` against a real gate: Claude Code's Read,
 * Glob, Grep and LS given `~root/…` are judged in root's home folder (the passwd database), outside
 * the workspace, so a person is asked, never an unasked allow of "a folder named ~root in the cwd".
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import { CLI, cliEnv, startTestGate, type TestGate } from '../integration/helpers';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/claude-code');

let gate: TestGate | undefined;

afterEach(async () => {
  await gate?.close();
  gate = undefined;
});

/** Runs the hook command with Claude Code's PreToolUse JSON on stdin; resolves with the decision it printed. */
function runHook(home: string, stdin: string): Promise<string | undefined> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [CLI, 'hook', 'claude-code'], { env: cliEnv(home), stdio: 'pipe' });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => resolveRun((JSON.parse(stdout) as { hookSpecificOutput?: { permissionDecision?: string } }).hookSpecificOutput?.permissionDecision));
    child.stdin.end(stdin);
  });
}

/** Claude Code's recorded Read input, made into another tool's call in the test's workspace. */
function preToolUse(workspace: string, toolName: string, toolInput: Record<string, unknown>): string {
  const input = JSON.parse(readFileSync(join(FIXTURES, 'pre-read.json'), 'utf8').replaceAll('${WORKSPACE}', workspace)) as Record<string, unknown>;
  return JSON.stringify({ ...input, tool_name: toolName, tool_input: toolInput, tool_use_id: `toolu_${toolName}_home` });
}

describe('toolgate hook claude-code with ~user paths', () => {
  it.each([
    ['Read', { file_path: '~root/.bashrc' }],
    ['Glob', { pattern: '*', path: '~root' }],
    ['Grep', { pattern: 'PATH', path: '~root/' }],
    ['LS', { path: '~root' }],
  ])('asks a person for %s %j (root\'s home is outside the workspace), and says deny when the person denies', async (tool, toolInput) => {
    gate = await startTestGate();
    const { running, dirs } = gate;
    const asked: ApprovalRequest[] = [];
    running.backend.subscribe('approvalRequested', (request) => {
      asked.push(request);
      void running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny', reason: 'not root' });
    });
    const decision = await runHook(dirs.home, preToolUse(dirs.workspace, tool, toolInput));
    expect(decision).toBe('deny');
    expect(asked.map((request) => request.rule)).toEqual(['hook:outside-workspace']);
    expect(asked[0]!.arguments).toEqual(toolInput);
  });

  it('reads a ~name that names no user as the folder of that name in the cwd, the only place it can lead', async () => {
    gate = await startTestGate();
    const { running, dirs } = gate;
    let prompts = 0;
    running.backend.subscribe('approvalRequested', () => prompts++);
    expect(await runHook(dirs.home, preToolUse(dirs.workspace, 'Read', { file_path: '~nosuchuser-toolgate/notes.md' }))).toBe('allow');
    expect(prompts).toBe(0);
  });
});
