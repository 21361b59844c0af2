/**
 * A short shell line whose brace lists multiply (`{a,b}` written 24 times is 16 million words, in
 * 130 characters) is refused at once through a real gate, by MCP and by Claude Code's hook: the
 * gate does not expand it to judge it (it froze, then died out of memory, and the call that killed
 * it left no record), keeps answering, and records the refused call.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import { MAX_BRACE_LISTS, MAX_BRACE_WORDS } from '../../main/tools/shell/shellWords';
import { runHook } from '../hooks/hookProcesses';
import { approveEveryPrompt, connectMcp, startTestGate, textOf, type TestGate } from './helpers';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/claude-code');

/** `echo` and `{a,b}` written `lists` times: 2^lists words. */
const bomb = (lists: number) => `echo ${'{a,b}'.repeat(lists)}`;

let gate: TestGate | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  await gate?.close();
  client = undefined;
  gate = undefined;
});

/** A gate with a deny rule (which holds any line it cannot read), where anyone asked approves. */
async function openGate(): Promise<{ gate: TestGate; prompts: ApprovalRequest[] }> {
  const opened = await startTestGate({ userPolicy: { deny: ['shell_exec(rm *)'], allow: ['shell_exec(echo *)'] } });
  const prompts: ApprovalRequest[] = [];
  approveEveryPrompt(opened.running.backend, prompts);
  return { gate: opened, prompts };
}

it('an MCP shell_exec of the line is refused, saying why, the call recorded, and the gate answers the next call', async () => {
  const opened = await openGate();
  gate = opened.gate;
  client = await connectMcp(gate.running.mcpUrl, gate.token);

  const refused = await client.callTool({ name: 'shell_exec', arguments: { command: bomb(24) } });
  expect(refused.isError).toBe(true);
  expect(textOf(refused)).toContain(`more than ${MAX_BRACE_WORDS} words by brace expansion`);
  expect(opened.prompts).toEqual([]);
  const recorded = gate.running.gate.audit.list({ limit: 20 }).filter((record) => JSON.stringify(record.payload).includes('{a,b}{a,b}{a,b}'));
  expect(recorded.length).toBeGreaterThan(0);

  // A line just under the bound is read, allowed and run as before.
  const fine = await client.callTool({ name: 'shell_exec', arguments: { command: bomb(10) } });
  expect(fine.isError, textOf(fine)).not.toBe(true);
  expect(textOf(fine).match(/\b[ab]{10}\b/g)).toHaveLength(1024);
});

it.each([
  ['12,000 lists in one word', `echo ${'{a,}'.repeat(12_000)}`],
  ['one list nested 5,000 deep', `echo ${'{'.repeat(5_000)}a,b${'}'.repeat(5_000)}`],
  ['60,000 opening braces', `echo ${'{'.repeat(60_000)}`],
])('a word of %s is refused without being read list by list', async (_name, command) => {
  const opened = await openGate();
  gate = opened.gate;
  client = await connectMcp(gate.running.mcpUrl, gate.token);
  const refused = await client.callTool({ name: 'shell_exec', arguments: { command } });
  expect(refused.isError).toBe(true);
  expect(textOf(refused)).toContain(`more than the ${MAX_BRACE_LISTS} a word's brace lists are read for`);
  expect(opened.prompts).toEqual([]);
});

it("Claude Code's Bash with the line is denied at once by the hook, and the gate answers the next call", async () => {
  const opened = await openGate();
  gate = opened.gate;
  const input = JSON.parse(readFileSync(join(FIXTURES, 'pre-bash.json'), 'utf8').replaceAll('${WORKSPACE}', gate.dirs.workspace)) as { tool_input: { command: string } };
  input.tool_input.command = bomb(30);
  const run = await runHook(gate.dirs.home, JSON.stringify(input));
  expect(run.code).toBe(0);
  const answer = run.answer.hookSpecificOutput as { permissionDecision?: string; permissionDecisionReason?: string };
  expect(answer.permissionDecision).toBe('deny');
  expect(answer.permissionDecisionReason).toContain('by brace expansion');
  expect(opened.prompts).toEqual([]);

  client = await connectMcp(gate.running.mcpUrl, gate.token);
  const next = await client.callTool({ name: 'echo', arguments: { text: 'still here' } });
  expect(textOf(next)).toContain('still here');
});
