/**
 * What a call was judged on can change before it runs: a program started through the gate may put a
 * link in place of a name while the call waits, or anyone may while a person takes their time to
 * approve it. Through a real gate (the official MCP client as the agent, real tool processes): a
 * call of named files never runs beside such a program, and one whose files may have changed since
 * it was judged is judged again when its turn comes. The folder it names, swapped for a link into a
 * denied folder meanwhile, refuses it then; left alone, it runs as it was allowed.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAIT_MS, waitUntil, writeWhenRead } from '../fixtures/processes';
import { connectMcp, nextApproval, PRIVATE_DENY, registerHeldTool, startTestGate, textOf, writePrivateKey, type TestGate } from './helpers';

const SECRET = 'the-private-key-text';

let gate: TestGate;
let agent: Client;
let workspace: string;

beforeAll(async () => {
  gate = await startTestGate({
    userPolicy: { allow: ['read_file', 'shell_exec(cat *)'], ask: ['read_file(asked/**)'], deny: PRIVATE_DENY },
  });
  workspace = writePrivateKey(gate, SECRET);
  agent = await connectMcp(gate.running.mcpUrl, gate.token);
});

afterAll(async () => {
  await agent?.close();
  await gate?.close();
});

const call = (name: string, args: Record<string, unknown>) => agent.callTool({ name, arguments: args }, undefined, { timeout: WAIT_MS }) as Promise<CallToolResult>;

/** A folder holding `key` (and `name` holding the same text): what a call names, before anything is swapped. */
function plainFolder(name: string): void {
  mkdirSync(join(workspace, name), { recursive: true });
  writeFileSync(join(workspace, name, 'key'), 'nothing private\n');
}

/** Puts a link to the denied folder where `name` was, as a program could (`mv` and `ln -s` from another folder). */
function swapForLink(name: string): void {
  renameSync(join(workspace, name), join(workspace, `${name}-before`));
  symlinkSync('private', join(workspace, name));
}

/**
 * Starts a shell_exec whose program runs until the test writes to its FIFO; resolves once it runs,
 * with the call's answer and the way to let it end.
 */
async function programRunning(fifo: string): Promise<{ answer: Promise<CallToolResult>; end: () => Promise<void> }> {
  execFileSync('mkfifo', [join(workspace, fifo)]);
  const answer = call('shell_exec', { command: `cat ${fifo}` });
  await waitUntil(() => gate.running.gate.scheduler.programsRunning() > 0, 'the program to run in the gate');
  const end = () => writeWhenRead(join(workspace, fifo), 'go\n');
  return { answer, end };
}

/** Waits until `reading` waits for its turn; one that ran at once instead fails the test, its program ended first. */
async function waitsForItsTurn(reading: Promise<CallToolResult>, program: { end: () => Promise<void> }): Promise<void> {
  let settled = false;
  void reading.finally(() => (settled = true));
  await waitUntil(() => settled || gate.running.gate.scheduler.stats().queued > 0, 'the read to wait for its turn');
  if (settled) await program.end();
  expect(settled, 'the read ran while the program ran, on names the program could swap').toBe(false);
}

describe('a call judged on names that changed before its turn', () => {
  it('a read sent while a program runs waits for it, and is refused by the deny when the folder it names became a link to the denied one', async () => {
    plainFolder('docs');
    const denyHits = async () => (await gate.running.backend.handlers.listPermissions({})).find((permission) => permission.rule === 'read_file(private/**)')?.hits ?? 0;
    const hitsBefore = await denyHits();
    const program = await programRunning('release-1');
    const reading = call('read_file', { path: 'docs/key' });
    await waitsForItsTurn(reading, program);
    swapForLink('docs');
    await program.end();
    expect((await program.answer).isError).not.toBe(true);
    const result = await reading;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('private stays private');
    expect(textOf(result)).toContain('judged again when its turn came');
    expect(textOf(result)).not.toContain(SECRET);
    // The deny decided the call: the console's Permissions counts its use.
    expect(await denyHits()).toBe(hitsBefore + 1);
  });

  it('a read sent while a program runs, whose folder stayed as it was, runs after it as it was allowed', async () => {
    plainFolder('notes');
    const program = await programRunning('release-2');
    const reading = call('read_file', { path: 'notes/key' });
    await waitsForItsTurn(reading, program);
    await program.end();
    await program.answer;
    const result = await reading;
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toContain('nothing private');
  });

  it('a read sent while an upstream server that may write files runs a call waits for it too, and is judged again', async () => {
    plainFolder('shared');
    // An upstream server's tool as the gateway registers it, its server able to write (unsandboxed, or a writable folder).
    const writer = registerHeldTool(gate.running.gate.registry, 'writer__work', { changesFiles: true });
    const working = call('writer__work', {});
    await waitUntil(writer.running, 'the upstream call to run');
    const counted = gate.running.gate.scheduler.programsRunning();
    if (counted === 0) writer.finish();
    expect(counted, 'a call of a server that may write counts as a program running').toBeGreaterThan(0);
    const reading = call('read_file', { path: 'shared/key' });
    await waitsForItsTurn(reading, { end: async () => writer.finish() });
    swapForLink('shared');
    writer.finish();
    expect((await working).isError).not.toBe(true);
    const result = await reading;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('private stays private');
    expect(textOf(result)).not.toContain(SECRET);
  });

  it('a read a person approves after the folder it names became a link to the denied one is refused, not run', async () => {
    plainFolder('asked');
    const prompt = nextApproval(gate.running.backend);
    const reading = call('read_file', { path: 'asked/key' });
    const request = await prompt;
    swapForLink('asked');
    await gate.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
    const result = await reading;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('private stays private');
    expect(textOf(result)).toContain('changed after it was approved');
    expect(textOf(result)).not.toContain(SECRET);
  });
});
