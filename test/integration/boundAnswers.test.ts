/**
 * An answer that names the binding the person was shown ("Approve all" sends each prompt's own)
 * holds only for that call: sent with another prompt's binding it is refused with a reason, and
 * the prompt keeps waiting, unanswered.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { connectMcp, nextApproval, startTestGate, type TestGate } from './helpers';

let gate: TestGate | undefined;
let agent: Client | undefined;

afterEach(async () => {
  await agent?.close();
  await gate?.close();
  agent = undefined;
  gate = undefined;
});

describe('answers bound to what the person saw', () => {
  it('refuses an approval carrying another prompt\'s binding and keeps the prompt; its own binding approves it', async () => {
    gate = await startTestGate();
    const { handlers } = gate.running.backend;
    agent = await connectMcp(gate.running.mcpUrl, gate.token);
    const firstPrompt = nextApproval(gate.running.backend);
    const firstCall = agent.callTool({ name: 'write_file', arguments: { path: 'a.txt', content: 'a\n' } });
    const first = await firstPrompt;
    const secondPrompt = nextApproval(gate.running.backend);
    const secondCall = agent.callTool({ name: 'write_file', arguments: { path: 'b.txt', content: 'b\n' } });
    const second = await secondPrompt;
    expect(first.bindingHash).not.toBe(second.bindingHash);

    await expect(handlers.decideApproval({ approvalId: first.approvalId, decision: 'approve', bindingHash: second.bindingHash })).rejects.toThrow(
      'this prompt no longer binds the call you were shown',
    );
    expect((await handlers.listApprovals({})).map((request) => request.approvalId)).toEqual([first.approvalId, second.approvalId]);
    expect(existsSync(join(gate.dirs.workspace, 'a.txt'))).toBe(false);

    await handlers.decideApproval({ approvalId: first.approvalId, decision: 'approve', bindingHash: first.bindingHash });
    await handlers.decideApproval({ approvalId: second.approvalId, decision: 'deny' });
    expect((await firstCall).isError).toBe(false);
    expect(readFileSync(join(gate.dirs.workspace, 'a.txt'), 'utf8')).toBe('a\n');
    expect((await secondCall).isError).toBe(true);
  });
});
