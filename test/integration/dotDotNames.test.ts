/**
 * A folder whose name only begins with two dots (`..cache`) lies inside the workspace, through a real
 * gate: a protected path in it (`..cache/.git/hooks`) asks a person however broad the allow, as it
 * does in any other folder, and an ordinary file in it is judged as a workspace file.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { connectMcp, nextApproval, startTestGate, textOf, type TestGate } from './helpers';

let gate: TestGate | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  await gate?.close();
  client = undefined;
  gate = undefined;
});

describe('a folder named with two leading dots', () => {
  it('holds protected paths like any other folder: a git hook written there asks a person, although the command is allowed', async () => {
    gate = await startTestGate({ userPolicy: { allow: ['shell_exec(touch *)'] } });
    const { workspace } = gate.dirs;
    mkdirSync(join(workspace, '..cache', '.git', 'hooks'), { recursive: true });
    client = await connectMcp(gate.running.mcpUrl, gate.token);

    const prompted = nextApproval(gate.running.backend);
    const hooked = client.callTool({ name: 'shell_exec', arguments: { command: 'touch ..cache/.git/hooks/pre-commit' } });
    // The person is asked before the command runs: a call that ends first was never asked about.
    const first = await Promise.race([prompted, hooked.then((result) => ({ ranUnasked: textOf(result) }))]);
    expect(first).not.toHaveProperty('ranUnasked');
    const request = await prompted;
    expect(request.rule).toContain('..cache/.git');
    await gate.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny', reason: 'no hooks' });
    expect((await hooked).isError).toBe(true);
    expect(existsSync(join(workspace, '..cache', '.git', 'hooks', 'pre-commit'))).toBe(false);

    // An ordinary file there is a workspace file: the allow holds, nobody is asked.
    const plain = await client.callTool({ name: 'shell_exec', arguments: { command: 'touch ..cache/notes.txt' } });
    expect(plain.isError, textOf(plain)).not.toBe(true);
    expect(existsSync(join(workspace, '..cache', 'notes.txt'))).toBe(true);
  });
});
