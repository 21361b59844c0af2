/**
 * Redirections that write a file, in every spelling bash takes, through a real gate: the official MCP
 * client as the agent calls shell_exec, real bash runs in the sandbox. With the user's
 * `allow: echo *` and `deny: write_file(notes/**)`, `>& file` (bash's older spelling of `&> file`)
 * is judged as the write it is and refused, as `>` and `&>` are; `>&2` still names no file. A
 * redirection written on a function definition (`f() { …; } > file`) writes each time the function
 * runs, and is refused as well.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, denyPromptsUnattended, startTestGate, textOf, type TestGate } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

let gate: TestGate;
let agent: Client;
let prompts: string[] = [];

beforeAll(async () => {
  gate = await startTestGate({ userPolicy: { allow: ['shell_exec(echo *)'], deny: ['write_file(notes/**)'] } });
  mkdirSync(join(gate.dirs.workspace, 'notes'));
  // Nobody is at the console: a prompt would be a failure here.
  prompts = denyPromptsUnattended(gate.running);
  agent = await connectMcp(gate.running.mcpUrl, gate.token);
});

afterAll(async () => {
  await agent?.close();
  await gate?.close();
});

function shell(command: string): Promise<CallToolResult> {
  return agent.callTool({ name: 'shell_exec', arguments: { command } }, undefined, { timeout: WAIT_MS }) as Promise<CallToolResult>;
}

describe('a write by redirection into a denied folder', () => {
  it.each([
    ['echo pwned > notes/a.txt', 'notes/a.txt'],
    ['echo pwned &> notes/b.txt', 'notes/b.txt'],
    ['echo pwned >& notes/c.txt', 'notes/c.txt'],
    ['echo pwned >&notes/d.txt', 'notes/d.txt'],
    // Bash applies a redirection written on a function definition to every call of the function.
    ['f() { echo pwned; } > notes/e.txt; f', 'notes/e.txt'],
    ['function f { echo pwned; } >> notes/f.txt; f', 'notes/f.txt'],
    ['f() ( echo pwned ) 2>&1 > notes/g.txt; f', 'notes/g.txt'],
  ])('%s is refused by the deny, unasked, and writes nothing', async (command, written) => {
    const result = await shell(command);
    expect(result.isError, textOf(result)).toBe(true);
    expect(textOf(result)).toContain('denied by `write_file(notes/**)`');
    expect(prompts).toEqual([]);
    expect(existsSync(join(gate.dirs.workspace, written))).toBe(false);
  });

  it('a redirection to a descriptor names no file: the allowed echo still runs unasked', async () => {
    const result = await shell('echo fine >&2');
    expect(result.isError, textOf(result)).not.toBe(true);
    expect(prompts).toEqual([]);
  });
});
