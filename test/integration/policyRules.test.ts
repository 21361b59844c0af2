/**
 * Policy rules through a real gate, driven by the official MCP client with the agent's token: an
 * allow runs with no prompt, a deny in another layer refuses with its provenance in the agent's
 * error, chaining past an allow is asked, no match falls back to the tier default, and a broken
 * file asks instead of allowing while the console's info carries its banner. The gate keeps serving.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startGate } from '../../main/gate/startGate';
import { auditKinds, callIdOf, connectMcp, makeTempDirs, nextApproval, readToken, textOf, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

let dirs: TempDirs | undefined;
let client: Client | undefined;
let close: (() => Promise<void>) | undefined;

afterEach(async () => {
  await client?.close();
  await close?.();
  dirs?.remove();
  client = undefined;
  close = undefined;
  dirs = undefined;
});

/** A gate over fresh folders with a managed file and a user file, and an agent connected to it. */
async function open(policies: { managed?: unknown; user?: string | unknown }) {
  dirs = makeTempDirs();
  const managedPolicyFile = join(dirs.outside, 'managed-policy.json');
  if (policies.managed) writeFileSync(managedPolicyFile, JSON.stringify(policies.managed, null, 2));
  if (policies.user) writeFileSync(join(dirs.home, 'policy.json'), typeof policies.user === 'string' ? policies.user : JSON.stringify(policies.user, null, 2));
  const running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: WAIT_MS, poolSize: 1, managedPolicyFile });
  close = () => running.close();
  client = await connectMcp(running.mcpUrl, readToken(dirs.home));
  return { running, client, dirs, managedPolicyFile };
}

describe('policy rules over MCP', () => {
  it('an allow rule runs a matching call with no prompt; a deny in another layer refuses with provenance', async () => {
    const { running, client, dirs, managedPolicyFile } = await open({
      managed: { deny: [{ rule: 'write_file(notes/private/**)', reason: 'private notes stay by hand' }, 'shell_exec(rm -rf *)'] },
      user: { allow: ['write_file(notes/**)', 'shell_exec(echo *)', 'shell_exec(rm *)'] },
    });
    let prompted = 0;
    running.backend.subscribe('approvalRequested', () => prompted++);

    const allowed = await client.callTool({ name: 'write_file', arguments: { path: 'notes/today.md', content: 'hello\n' } });
    expect(allowed.isError).toBe(false);
    expect(readFileSync(join(dirs.workspace, 'notes/today.md'), 'utf8')).toBe('hello\n');
    const policyRecord = running.gate.audit.forCall(callIdOf(allowed)).find((record) => record.kind === 'policy')!;
    expect(policyRecord.payload).toMatchObject({ decision: 'allow', mode: 'standard', provenance: { rule: 'write_file(notes/**)', source: { layer: 'user', line: 3 }, matched: 'notes/today.md' } });
    expect(auditKinds(running.gate.audit.forCall(callIdOf(allowed)))).not.toContain('approval-requested');
    expect(running.gate.calls.list().find((call) => call.callId === callIdOf(allowed))?.decidedBy).toEqual({
      by: 'rule',
      detail: `write_file(notes/**) (user policy line 3 (${join(dirs.home, 'policy.json')}))`,
    });

    const denied = await client.callTool({ name: 'write_file', arguments: { path: 'notes/private/diary.md', content: 'x' } });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain(`denied by \`write_file(notes/private/**)\`, managed policy line 4 (${managedPolicyFile}): private notes stay by hand`);
    expect(existsSync(join(dirs.workspace, 'notes/private'))).toBe(false);

    // A flag spelling the allow of `rm *` would have let through: the managed deny holds the whole line.
    mkdirSync(join(dirs.workspace, 'build'));
    const spelled = await client.callTool({ name: 'shell_exec', arguments: { command: 'echo cleaning && rm --recursive --force build' } });
    expect(spelled.isError).toBe(true);
    expect(textOf(spelled)).toContain('denied by `shell_exec(rm -rf *)`, managed policy line 7');
    expect(textOf(spelled)).toContain('(matched "rm --recursive --force build")');
    expect(existsSync(join(dirs.workspace, 'build'))).toBe(true);

    // The gate keeps serving: an allowed shell line runs in the sandbox, unasked.
    const echoed = await client.callTool({ name: 'shell_exec', arguments: { command: 'echo still here' } });
    expect(echoed.isError).toBe(false);
    expect(textOf(echoed)).toContain('still here');
    expect(prompted).toBe(0);
  });

  it('a deny names the path as the agent wrote it, and where it resolves when a link leads elsewhere', async () => {
    const { client, dirs } = await open({ user: { allow: ['read_file'], deny: ['read_file(real/**)'] } });
    mkdirSync(join(dirs.workspace, 'real'));
    writeFileSync(join(dirs.workspace, 'real/key.txt'), 'k');
    symlinkSync('real', join(dirs.workspace, 'secret'));
    const viaLink = await client.callTool({ name: 'read_file', arguments: { path: 'secret/key.txt' } });
    expect(viaLink.isError).toBe(true);
    expect(textOf(viaLink)).toContain('(matched "secret/key.txt", which resolves to real/key.txt)');
    const direct = await client.callTool({ name: 'read_file', arguments: { path: './real/key.txt' } });
    expect(textOf(direct)).toContain('(matched "./real/key.txt")');
  });

  it('chaining past an allow, and a call no rule matches, ask a person (the tier default)', async () => {
    const { running, client, dirs } = await open({ user: { allow: ['shell_exec(echo *)'] } });
    const prompt = nextApproval(running.backend);
    const chained = client.callTool({ name: 'shell_exec', arguments: { command: 'echo hi; touch pwned' } });
    const request = await prompt;
    expect(request.rule).toBe('tier:RESTRICTED→ask');
    await running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny', reason: 'no' });
    expect((await chained).isError).toBe(true);
    expect(existsSync(join(dirs.workspace, 'pwned'))).toBe(false);

    const unmatched = nextApproval(running.backend);
    const write = client.callTool({ name: 'write_file', arguments: { path: 'a.txt', content: 'a' } });
    expect((await unmatched).rule).toBe('tier:ELEVATED→ask');
    await running.backend.handlers.decideApproval({ approvalId: (await unmatched).approvalId, decision: 'deny', reason: 'no' });
    expect((await write).isError).toBe(true);
  });

  it('an ask rule asks even where an allow matches, and its prompt shows the rule, its source and reason', async () => {
    const { running, client, dirs } = await open({ user: { allow: ['write_file'], ask: [{ rule: 'write_file(docs/**)', reason: 'docs get a second look' }] } });
    const prompt = nextApproval(running.backend);
    const call = client.callTool({ name: 'write_file', arguments: { path: 'docs/a.md', content: 'a' } });
    const request = await prompt;
    expect(request.rule).toBe(`write_file(docs/**) (user policy line 7 (${join(dirs.home, 'policy.json')})): docs get a second look`);
    await running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
    expect((await call).isError).toBe(false);
    expect(running.gate.calls.list().find((entry) => entry.callId === request.callId)?.decidedBy).toEqual({ by: 'person', detail: 'approved' });
  });

  it('no bypass line gets past an allow of echo: each is asked, denied, and leaves no mark; the gate keeps serving', async () => {
    const { running, client, dirs } = await open({ user: { allow: ['shell_exec(echo *)', 'shell_exec(ls *)'] } });
    const asked: string[] = [];
    running.backend.subscribe('approvalRequested', (request) => {
      asked.push((request.arguments as { command: string }).command);
      void running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny', reason: 'bypass attempt' });
    });
    const lines = [
      'echo a; touch m1',
      'echo a && touch m2',
      'false || touch m3',
      'echo a | tee m4',
      'echo a & touch m5',
      'echo a\ntouch m6',
      'echo $(touch m7)',
      'echo `touch m8`',
      'ls <(touch m9)',
      '{ echo a; touch m10; }',
      "timeout 5 sh -c 'touch m11'",
      'echo m12 | xargs touch',
      'env touch m13',
      'find . -maxdepth 0 -exec touch m14 ;',
      'LD_PRELOAD=/nonexistent.so echo m15',
      'PATH=.:$PATH ls m16',
      'echo a > m17',
      'eval touch m18',
    ];
    for (const command of lines) {
      const result = await client.callTool({ name: 'shell_exec', arguments: { command } });
      expect(result.isError, command).toBe(true);
      expect(textOf(result), command).toContain('bypass attempt');
    }
    expect(asked).toEqual(lines);
    for (let mark = 1; mark <= 18; mark++) expect(existsSync(join(dirs.workspace, `m${mark}`)), `m${mark}`).toBe(false);
    const fine = await client.callTool({ name: 'shell_exec', arguments: { command: 'echo fine && ls' } });
    expect(fine.isError).toBe(false);
    expect(asked).toHaveLength(lines.length);
  });

  it('a broken file asks instead of allowing, shows its banner, and allows again once fixed', async () => {
    const { running, client, dirs } = await open({ user: '{\n  "allow": [\n    "calculator",\n  ]\n}\n' });
    const info = await running.backend.handlers.getInfo({});
    expect(info.policy?.problems).toEqual([
      expect.objectContaining({ layer: 'user', file: join(dirs.home, 'policy.json'), line: 4, problem: expect.stringContaining('not JSON') }),
    ]);
    const prompt = nextApproval(running.backend);
    const call = client.callTool({ name: 'calculator', arguments: { expression: '1+1' } });
    const request = await prompt;
    expect(request.rule).toBe('policy-file-refused');
    await running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
    expect((await call).isError).toBe(false);

    const changed = new Promise((resolve) => running.backend.subscribe('policyChanged', resolve));
    writeFileSync(join(dirs.home, 'policy.json'), '{"allow": ["calculator"]}\n');
    expect(await changed).toMatchObject({ problems: [] });
    const after = await client.callTool({ name: 'calculator', arguments: { expression: '2+2' } });
    expect(after.isError).toBe(false);
    expect(textOf(after)).toContain('4');
  });
});
