/**
 * Answers that last, through a real gate driven by the official MCP client with the agent's token:
 * "Approve for this session" lets that agent session's next matching call run unasked while another
 * call (or another agent) still asks; "Always allow" writes the edited rule to the user file and the
 * Permissions list shows it with its file and line; revoke makes the next call ask again. Rules an
 * attacker would like saved (invalid, not covering the call, a session grant stretched to others)
 * are refused with nothing saved, and the gate keeps serving.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startGate } from '../../main/gate/startGate';
import { connectMcp, makeTempDirs, nextApproval, readToken, textOf, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

let dirs: TempDirs | undefined;
const clients: Client[] = [];
let close: (() => Promise<void>) | undefined;

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await close?.();
  dirs?.remove();
  close = undefined;
  dirs = undefined;
});

async function open() {
  dirs = makeTempDirs();
  const running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: WAIT_MS, poolSize: 1, managedPolicyFile: join(dirs.outside, 'managed.json') });
  close = () => running.close();
  const agent = async () => {
    const client = await connectMcp(running.mcpUrl, readToken(dirs!.home));
    clients.push(client);
    return client;
  };
  let prompts = 0;
  running.backend.subscribe('approvalRequested', () => prompts++);
  return { running, handlers: running.backend.handlers, agent, dirs, prompted: () => prompts };
}

describe('scoped approvals', () => {
  it('approve for this session: the same agent runs the next matching call unasked; another file, and another agent, still ask', async () => {
    const { running, handlers, agent, prompted } = await open();
    const first = await agent();
    const second = await agent();
    const prompt = nextApproval(running.backend);
    const call = first.callTool({ name: 'write_file', arguments: { path: 'notes/a.md', content: 'one\n' } });
    const request = await prompt;
    expect(request.suggestedRules?.[0]?.rule).toBe('write_file(notes/a.md)');
    expect(request.suggestedRules?.[1]?.rule).toBe('write_file(notes/**)');
    const outcome = await handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve', scope: { kind: 'session' }, rules: ['write_file(notes/a.md)'] });
    expect(outcome).toMatchObject({ outcome: 'approved', scope: { kind: 'session' }, rules: ['write_file(notes/a.md)'] });
    expect((await call).isError).toBe(false);

    const again = await first.callTool({ name: 'write_file', arguments: { path: 'notes/a.md', content: 'two\n' } });
    expect(again.isError).toBe(false);
    expect(prompted()).toBe(1);

    // Another agent session is not covered by the grant: it is asked.
    const otherPrompt = nextApproval(running.backend);
    const other = second.callTool({ name: 'write_file', arguments: { path: 'notes/a.md', content: 'three\n' } });
    const asked = await otherPrompt;
    await handlers.decideApproval({ approvalId: asked.approvalId, decision: 'deny', tellAgent: '  write notes/b.md instead\n' });
    const refused = await other;
    expect(refused.isError).toBe(true);
    // What the person typed reaches the agent verbatim.
    expect(textOf(refused)).toContain('a person denied it and says:\n  write notes/b.md instead\n');

    // Another file of the same agent is asked too.
    const thirdPrompt = nextApproval(running.backend);
    const third = first.callTool({ name: 'write_file', arguments: { path: 'notes/b.md', content: 'x' } });
    await handlers.decideApproval({ approvalId: (await thirdPrompt).approvalId, decision: 'approve' });
    expect((await third).isError).toBe(false);
    expect(prompted()).toBe(3);

    const [grant] = (await handlers.listPermissions({})).filter((permission) => permission.layer === 'session');
    expect(grant).toMatchObject({ rule: 'write_file(notes/a.md)', hits: 1, revocable: true, agentSession: request.agentSession });
  });

  it('always allow writes the edited rule to the user file; Permissions shows it with its line; revoke asks again', async () => {
    const { running, handlers, agent, dirs, prompted } = await open();
    const client = await agent();
    const prompt = nextApproval(running.backend);
    const call = client.callTool({ name: 'shell_exec', arguments: { command: 'git status --short' } });
    const request = await prompt;
    expect(request.suggestedRules?.map((suggestion) => suggestion.rule)).toEqual(['shell_exec(git status --short)', 'shell_exec(git status *)']);
    const check = await handlers.checkRules({ approvalId: request.approvalId, rules: ['shell_exec(git *)'], scope: { kind: 'always', file: 'user' } });
    expect(check.problems).toEqual([]);
    expect(check.warnings).toEqual(['shell_exec(git *) allows git with any arguments']);
    await handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve', scope: { kind: 'always', file: 'user' }, rules: ['shell_exec(git status *)'] });
    await call;
    const userFile = join(dirs.home, 'policy.json');
    expect(JSON.parse(readFileSync(userFile, 'utf8'))).toEqual({ allow: ['shell_exec(git status *)'] });

    const unasked = await client.callTool({ name: 'shell_exec', arguments: { command: 'git status' } });
    expect(textOf(unasked)).not.toContain('EDENIED');
    expect(prompted()).toBe(1);
    const saved = (await handlers.listPermissions({})).find((permission) => permission.rule === 'shell_exec(git status *)')!;
    expect(saved).toMatchObject({ layer: 'user', file: userFile, line: 3, hits: 1, revocable: true });
    expect(saved.source).toContain(`user policy line 3 (${userFile})`);

    expect(await handlers.revokePermission({ id: saved.id })).toEqual({ revoked: true });
    expect(JSON.parse(readFileSync(userFile, 'utf8'))).toEqual({ allow: [] });
    const askedAgain = nextApproval(running.backend);
    const after = client.callTool({ name: 'shell_exec', arguments: { command: 'git status' } });
    await handlers.decideApproval({ approvalId: (await askedAgain).approvalId, decision: 'deny' });
    expect((await after).isError).toBe(true);
  });

  it('a session grant kept for good moves to the user file: every agent then runs the call unasked, and nothing else is kept', async () => {
    const { running, handlers, agent, dirs, prompted } = await open();
    const first = await agent();
    const second = await agent();
    const prompt = nextApproval(running.backend);
    const call = first.callTool({ name: 'write_file', arguments: { path: 'notes/a.md', content: 'one\n' } });
    const request = await prompt;
    await handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve', scope: { kind: 'session' }, rules: ['write_file(notes/a.md)'] });
    expect((await call).isError).toBe(false);
    const [grant] = (await handlers.listPermissions({})).filter((permission) => permission.layer === 'session');

    const userFile = join(dirs.home, 'policy.json');
    expect(await handlers.keepPermission({ id: grant!.id, file: 'user' })).toEqual({ file: userFile });
    expect(JSON.parse(readFileSync(userFile, 'utf8'))).toEqual({ allow: ['write_file(notes/a.md)'] });
    const inForce = await handlers.listPermissions({});
    expect(inForce.filter((permission) => permission.layer === 'session')).toEqual([]);
    expect(inForce.find((permission) => permission.rule === 'write_file(notes/a.md)')).toMatchObject({ layer: 'user', file: userFile });
    // The other agent, which the session grant never covered, now runs it unasked.
    expect((await second.callTool({ name: 'write_file', arguments: { path: 'notes/a.md', content: 'two\n' } })).isError).toBe(false);
    expect(prompted()).toBe(1);

    // Only a grant an approval made can be kept; one already gone says so.
    const fileRule = inForce.find((permission) => permission.layer === 'user')!;
    await expect(handlers.keepPermission({ id: fileRule.id, file: 'project' })).rejects.toMatchObject({ code: 'EVALIDATION' });
    await expect(handlers.keepPermission({ id: grant!.id, file: 'user' })).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(JSON.parse(readFileSync(userFile, 'utf8'))).toEqual({ allow: ['write_file(notes/a.md)'] });
  });

  it('an invalid rule, or one that does not cover the call, is refused with the reason and nothing is saved; the prompt stays', async () => {
    const { running, handlers, agent, dirs } = await open();
    const client = await agent();
    const prompt = nextApproval(running.backend);
    const call = client.callTool({ name: 'write_file', arguments: { path: 'src/app.ts', content: 'x' } });
    const request = await prompt;
    const always = { kind: 'always', file: 'user' } as const;
    for (const [rules, expected] of [
      [['write_file(src/app.ts'], /has no closing parenthesis/],
      [['no_such_tool(x)'], /is not a tool of this gate/],
      [['write_file(docs/**)'], /do not allow the call you are approving/],
      [['read_file(**)'], /do not allow the call you are approving/],
      [[''], /write at least one rule/],
    ] as const) {
      expect((await handlers.checkRules({ approvalId: request.approvalId, rules: [...rules], scope: always })).problems.join('\n')).toMatch(expected);
      await expect(handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve', scope: always, rules: [...rules] })).rejects.toThrow(expected);
    }
    expect(existsSync(join(dirs.home, 'policy.json'))).toBe(false);
    expect((await handlers.listPermissions({})).filter((permission) => permission.layer === 'session')).toEqual([]);
    // The prompt is still there, and the gate still answers it.
    expect((await handlers.listApprovals({})).map((waiting) => waiting.approvalId)).toEqual([request.approvalId]);
    expect((await handlers.checkRules({ approvalId: request.approvalId, rules: ['write_file(**)'], scope: always })).warnings).toEqual([
      'write_file(**) covers the whole workspace, so it lets every file be written',
    ]);
    await handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
    expect((await call).isError).toBe(false);
  });

  it('a rule being checked lists the calls of the log it would also have allowed', async () => {
    const { running, handlers, agent } = await open();
    const client = await agent();
    const first = nextApproval(running.backend);
    const earlier = client.callTool({ name: 'write_file', arguments: { path: 'notes/a.md', content: 'one\n' } });
    await handlers.decideApproval({ approvalId: (await first).approvalId, decision: 'approve' });
    const earlierId = (await earlier)._meta?.['toolgate/callId'];
    const prompt = nextApproval(running.backend);
    const call = client.callTool({ name: 'write_file', arguments: { path: 'notes/b.md', content: 'two\n' } });
    const request = await prompt;
    const check = await handlers.checkRules({ approvalId: request.approvalId, rules: ['write_file(notes/**)'], scope: { kind: 'session' } });
    expect(check.matches).toEqual([expect.objectContaining({ callId: earlierId, tool: 'write_file', arguments: { path: 'notes/a.md', content: 'one\n' } })]);
    await handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny' });
    expect((await call).isError).toBe(true);
  });

  it('an old call the rules cannot judge (a NUL byte in its path) does not stop a rule being checked and granted', async () => {
    const { running, handlers, agent } = await open();
    const client = await agent();
    const poisoned = await client.callTool({ name: 'write_file', arguments: { path: 'y\u0000', content: '' } });
    expect(poisoned.isError).toBe(true);
    const prompt = nextApproval(running.backend);
    const call = client.callTool({ name: 'write_file', arguments: { path: 'notes/a.md', content: 'one\n' } });
    const request = await prompt;
    const check = await handlers.checkRules({ approvalId: request.approvalId, rules: ['write_file(**)'], scope: { kind: 'session' } });
    expect(check.problems).toEqual([]);
    await handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve', scope: { kind: 'session' }, rules: ['write_file(notes/a.md)'] });
    expect((await call).isError).toBe(false);
  });

  it('a timed grant holds for every agent until it expires', async () => {
    const { running, handlers, agent } = await open();
    const first = await agent();
    const second = await agent();
    const prompt = nextApproval(running.backend);
    const call = first.callTool({ name: 'write_file', arguments: { path: 'a.txt', content: 'x' } });
    const request = await prompt;
    await handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve', scope: { kind: 'timed', duration: '15m' }, rules: ['write_file(a.txt)'] });
    await call;
    expect((await second.callTool({ name: 'write_file', arguments: { path: 'a.txt', content: 'y' } })).isError).toBe(false);
    const [grant] = await handlers.listPermissions({});
    expect(grant).toMatchObject({ layer: 'session', scope: 'every agent' });
    expect(Date.parse(grant!.expiresAt!) - Date.now()).toBeGreaterThan(14 * 60_000);
  });
});
