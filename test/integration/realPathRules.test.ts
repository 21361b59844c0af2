/**
 * Path rules on real paths, across tools, through a real gate: the official MCP client as the
 * agent, a user policy, and shell lines run by real bash in the sandbox. A deny on a folder named
 * through a symlink holds the folder it leads to; a read deny holds every tool and shell command
 * that reads there, a write deny every one that writes; nobody is asked, and nothing leaks or lands.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { HEAD_LOOKUP_MS } from '../../main/policy/pathRule';
import { connectMcp, startTestGate, textOf, type TestGate } from './helpers';

const SECRET = 'TOP-SECRET-7f3a';

let gate: TestGate | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  await gate?.close();
  client = undefined;
  gate = undefined;
});

/** A gate with this user policy over a workspace holding real/key.txt, a symlink secret → real, and src/a.ts; an agent connected. */
async function open(userPolicy: unknown) {
  gate = await startTestGate({ userPolicy });
  const { workspace } = gate.dirs;
  mkdirSync(join(workspace, 'real'));
  writeFileSync(join(workspace, 'real', 'key.txt'), `${SECRET}\n`);
  symlinkSync('real', join(workspace, 'secret'));
  mkdirSync(join(workspace, 'src'));
  writeFileSync(join(workspace, 'src', 'a.ts'), 'export const a = 1;\n');
  // The link is made after the rules loaded: where a rule's folder leads is looked up again once
  // HEAD_LOOKUP_MS has passed since the last look, so the calls come after that.
  await new Promise((resolve) => setTimeout(resolve, HEAD_LOOKUP_MS + 10));
  client = await connectMcp(gate.running.mcpUrl, gate.token);
  let prompts = 0;
  gate.running.backend.subscribe('approvalRequested', () => prompts++);
  return { workspace, client, prompts: () => prompts };
}

/** Calls a tool and returns whether it failed and its text. */
async function call(agent: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string }> {
  const result = await agent.callTool({ name, arguments: args });
  return { isError: result.isError === true, text: textOf(result) };
}

describe('path rules on real paths, across tools, over MCP', () => {
  it.each([
    ['read_file', { path: 'real/key.txt' }],
    ['shell_exec', { command: 'cat < real/key.txt' }],
    ['shell_exec', { command: 'cat real/key.txt' }],
  ] as const)('a read deny on a symlinked folder holds the real folder: %s %j is refused unasked', async (tool, args) => {
    const { client: agent, prompts } = await open({ allow: ['read_file', 'shell_exec(cat *)'], deny: ['read_file(secret/**)'] });
    const result = await call(agent, tool, args);
    expect(result.isError).toBe(true);
    expect(result.text).toContain('denied by `read_file(secret/**)`');
    expect(result.text).not.toContain(SECRET);
    // The same allow still runs a read elsewhere, in the sandbox, unasked.
    const allowed = await call(agent, 'shell_exec', { command: 'cat src/a.ts' });
    expect(allowed.isError).toBe(false);
    expect(allowed.text).toContain('export const a = 1;');
    expect(prompts()).toBe(0);
  });

  it.each([
    ['search_files', { query: 'TOP', path: 'real' }],
    ['list_dir', { path: 'real' }],
  ] as const)('a read_file deny on a folder holds %s %j of it', async (tool, args) => {
    const { client: agent, prompts } = await open({ deny: ['read_file(real/**)'] });
    const result = await call(agent, tool, args);
    expect(result.isError).toBe(true);
    expect(result.text).toContain('denied by `read_file(real/**)`');
    expect(result.text).not.toContain(SECRET);
    expect(result.text).not.toContain('key.txt');
    // A folder that holds none of it is searched as before.
    const elsewhere = await call(agent, 'search_files', { query: 'export', path: 'src' });
    expect(elsewhere.isError).toBe(false);
    expect(elsewhere.text).toContain('a.ts');
    expect(prompts()).toBe(0);
  });

  it.each([
    ['write_file', { path: 'real/key.txt', content: 'planted' }],
    ['shell_exec', { command: 'echo planted > real/key.txt' }],
  ] as const)('a write deny on a symlinked folder holds %s %j into the real folder', async (tool, args) => {
    const { workspace, client: agent, prompts } = await open({ allow: ['write_file(**)', 'shell_exec(echo *)'], deny: ['write_file(secret/**)'] });
    const result = await call(agent, tool, args);
    expect(result.isError).toBe(true);
    expect(result.text).toContain('denied by `write_file(secret/**)`');
    expect(readFileSync(join(workspace, 'real', 'key.txt'), 'utf8')).toBe(`${SECRET}\n`);
    // Writes elsewhere still run unasked, bash's redirect included.
    expect((await call(agent, 'shell_exec', { command: 'echo fine > src/note.txt' })).isError).toBe(false);
    expect(readFileSync(join(workspace, 'src', 'note.txt'), 'utf8')).toBe('fine\n');
    expect(prompts()).toBe(0);
  });
});
