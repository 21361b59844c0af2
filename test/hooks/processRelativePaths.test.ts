/**
 * A path through /proc/self (or /dev/fd, /dev/stdin…) leads where the process opening it stands.
 * Claude Code opens the path the hook allowed in its own folder; the gate resolved it in the
 * gate's, and allowed `Read /proc/self/cwd/notes.txt` from a folder outside the workspace, or a
 * file a deny rule names, whenever the gate ran in the workspace. Through the real hook and gate,
 * started in the workspace, each such path now reaches a person (who denies here), and the plain
 * path is allowed as before.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import { startTestGate, type TestGate } from '../integration/helpers';
import { runHook } from './hookProcesses';

const SESSION = '4f1c2b8e-9a3d-4c57-b1e2-7d0f6a9c3e21';

let gate: TestGate;
let outside: string;
const prompts: ApprovalRequest[] = [];
const startedIn = process.cwd();

beforeAll(async () => {
  gate = await startTestGate({ userPolicy: { allow: ['read_file(**)', 'write_file(**)'], deny: ['read_file(sub/private/**)'] } });
  // The gate stands in the workspace, as one started there from a terminal does.
  process.chdir(gate.dirs.workspace);
  writeFileSync(join(gate.dirs.workspace, 'notes.txt'), 'notes\n');
  mkdirSync(join(gate.dirs.workspace, 'sub', 'private'), { recursive: true });
  symlinkSync('/proc/self/cwd', join(gate.dirs.workspace, 'here'));
  outside = gate.dirs.outside;
  // Nobody is at the console: every prompt is noted and denied.
  gate.running.backend.subscribe('approvalRequested', (request) => {
    prompts.push(request);
    void gate.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny', reason: 'nobody is here' });
  });
});

afterAll(async () => {
  process.chdir(startedIn);
  await gate?.close();
});

/** The hook's answer to Claude Code's PreToolUse of `tool` with `input`, sent from the folder `cwd`. */
async function answer(tool: string, input: Record<string, unknown>, cwd: string): Promise<{ permissionDecision?: string; permissionDecisionReason?: string }> {
  const run = await runHook(
    gate.dirs.home,
    JSON.stringify({ session_id: SESSION, cwd, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: `toolu_${prompts.length}_${tool}` }),
  );
  expect(run.code).toBe(0);
  return run.answer.hookSpecificOutput as { permissionDecision?: string; permissionDecisionReason?: string };
}

describe('a path whose meaning is the opening process own is never allowed by a folder rule', () => {
  it.each([
    ['Read', { file_path: '/proc/self/cwd/notes.txt' }, 'outside'],
    ['Write', { file_path: '/proc/self/cwd/notes2.txt', content: 'x' }, 'outside'],
    ['Read', { file_path: '/proc/thread-self/cwd/notes.txt' }, 'outside'],
    ['Read', { file_path: '/proc/self/cwd/private/k.txt' }, 'sub'],
    ['Read', { file_path: 'here/notes.txt' }, 'workspace'],
  ])('%s %j from the %s folder asks a person', async (tool, input, from) => {
    const cwd = from === 'outside' ? outside : from === 'sub' ? join(gate.dirs.workspace, 'sub') : gate.dirs.workspace;
    const before = prompts.length;
    const decided = await answer(tool, input, cwd);
    expect(decided.permissionDecision).toBe('deny');
    expect(prompts.length).toBe(before + 1);
    expect(JSON.stringify(prompts.at(-1))).toContain('/proc/');
  });

  it('a deny still holds where such a path leads from the gate too: /proc/self/root is / for every process', async () => {
    const before = prompts.length;
    const decided = await answer('Read', { file_path: `/proc/self/root${join(gate.dirs.workspace, 'sub', 'private', 'k.txt')}` }, gate.dirs.workspace);
    expect(decided.permissionDecision).toBe('deny');
    expect(decided.permissionDecisionReason).toContain('read_file(sub/private/**)');
    expect(prompts.length).toBe(before);
  });

  it('the same file by its own path is allowed, nobody asked', async () => {
    const before = prompts.length;
    const decided = await answer('Read', { file_path: join(gate.dirs.workspace, 'notes.txt') }, outside);
    expect(decided.permissionDecision).toBe('allow');
    expect(prompts.length).toBe(before);
  });
});
