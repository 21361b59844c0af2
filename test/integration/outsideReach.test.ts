/**
 * A shell rule vouches for reading in the workspace, a person for anything beyond it: through a real
 * gate, with the official MCP client as the agent and real bash in the sandbox, a line an allow rule
 * matches asks a person when it reads outside the workspace (as written, through `..`, `~user` or a
 * symlink) or from a place only the run decides; inside the workspace it runs unasked.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { connectMcp, nextApproval, startTestGate, textOf, type TestGate } from './helpers';

const KEY = 'PRIVATE-KEY-93c1';

let gate: TestGate | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  await gate?.close();
  client = undefined;
  gate = undefined;
});

describe('a shell allow rule reads only in the workspace unasked', () => {
  it.each([
    ['an absolute path', (outside: string) => `cat ${outside}/id_rsa`],
    ['a climb out with ..', () => 'cat ../outside/id_rsa'],
    ['a symlink in the workspace', () => 'cat keys/id_rsa'],
    ["another user's home", () => 'ls -R ~root'],
    ['a place only the run decides', () => 'cat $KEYFILE'],
  ])('%s asks a person, who can refuse it', async (_what, line) => {
    gate = await startTestGate({ userPolicy: { allow: ['shell_exec(cat *)', 'shell_exec(ls *)'] } });
    const { workspace, outside } = gate.dirs;
    writeFileSync(join(outside, 'id_rsa'), `${KEY}\n`);
    symlinkSync(outside, join(workspace, 'keys'));
    client = await connectMcp(gate.running.mcpUrl, gate.token);
    const command = line(outside);
    const prompt = nextApproval(gate.running.backend);
    const called = client.callTool({ name: 'shell_exec', arguments: { command } });
    const request = await prompt;
    expect(request.rule).toBe('outside-workspace');
    gate.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny', reason: 'not outside the workspace' });
    const result = await called;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('not outside the workspace');
    expect(textOf(result)).not.toContain(KEY);
  });

  it('inside the workspace the same rule runs unasked, and a write outside is left to the sandbox', async () => {
    gate = await startTestGate({ userPolicy: { allow: ['shell_exec(cat *)', 'shell_exec(touch *)'] } });
    const { workspace } = gate.dirs;
    mkdirSync(join(workspace, 'notes'));
    writeFileSync(join(workspace, 'notes', 'a.md'), 'inside\n');
    client = await connectMcp(gate.running.mcpUrl, gate.token);
    let prompts = 0;
    gate.running.backend.subscribe('approvalRequested', () => prompts++);
    const read = await client.callTool({ name: 'shell_exec', arguments: { command: 'cat notes/a.md' } });
    expect(read.isError).toBe(false);
    expect(textOf(read)).toContain('inside');
    // The rest of the machine is read-only in the sandbox: the write fails there, without asking.
    const written = await client.callTool({ name: 'shell_exec', arguments: { command: 'touch /usr/toolgate-outside' } });
    expect(textOf(written)).toMatch(/Read-only file system|Permission denied/);
    expect(prompts).toBe(0);
  });
});
