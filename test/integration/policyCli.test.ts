/**
 * `toolgate policy check | list | test | trust`: what each prints, through the CLI's own main() in
 * this process; as a person runs them (the built CLI in a child process) beside a running gate; and
 * `serve --grant RULE --mode` through a real gate with the agent's MCP client.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliHere } from './cliHere';
import { connectMcp, makeTempDirs, readToken, runCli, spawnServe, textOf, type TempDirs } from './helpers';

let dirs: TempDirs;

beforeEach(() => {
  dirs = makeTempDirs();
  process.env.TOOLGATE_MANAGED_POLICY = join(dirs.outside, 'managed.json');
});
afterEach(() => {
  delete process.env.TOOLGATE_MANAGED_POLICY;
  dirs.remove();
});

function writeUserPolicy(policy: unknown): void {
  writeFileSync(join(dirs.home, 'policy.json'), typeof policy === 'string' ? policy : JSON.stringify(policy, null, 2));
}

const check = (tool: string, input: unknown, ...extra: string[]) => runCliHere(['policy', 'check', tool, JSON.stringify(input), '--workspace', dirs.workspace, ...extra], dirs.home);

describe('toolgate policy', () => {
  it('check prints the decision, rule, layer, source and matched part, exiting 0 allow, 1 ask, 2 deny', async () => {
    writeUserPolicy({ allow: ['shell_exec(git status)'], deny: [{ rule: 'shell_exec(git push *)', reason: 'pushes need review' }] });
    const denied = await check('shell_exec', { command: 'git status && git push origin main' });
    expect(denied.code).toBe(2);
    expect(denied.stdout).toContain('decision deny');
    expect(denied.stdout).toContain('rule     shell_exec(git push *)');
    expect(denied.stdout).toContain('layer    user');
    expect(denied.stdout).toContain(`source   user policy line 7 (${join(dirs.home, 'policy.json')})`);
    expect(denied.stdout).toContain('matched  git push origin main');
    expect((await check('shell_exec', { command: 'git status' })).code).toBe(0);
    const asked = await check('write_file', { path: 'a.txt', content: '' });
    expect(asked.code).toBe(1);
    expect(asked.stdout).toContain('layer    tier default');
    const json = await check('shell_exec', { command: 'git push' }, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ decision: 'deny', provenance: { rule: 'shell_exec(git push *)', source: { layer: 'user', line: 7 } } });
    expect((await check('no_such_tool', {})).stderr).toContain('"no_such_tool" is not a tool');
  });

  it('list shows every rule with its source; test names a refused file, its line and the fix', async () => {
    writeFileSync(process.env.TOOLGATE_MANAGED_POLICY!, JSON.stringify({ deny: ['read_file(~/.ssh/**)'] }));
    writeUserPolicy({ allow: ['calculator'] });
    const listed = await runCliHere(['policy', 'list', '--workspace', dirs.workspace], dirs.home);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`deny  read_file(~/.ssh/**)  — managed policy line 1 (${process.env.TOOLGATE_MANAGED_POLICY})`);
    expect(listed.stdout).toContain('allow calculator  — user policy line 3');
    expect((await runCliHere(['policy', 'test', '--workspace', dirs.workspace], dirs.home)).code).toBe(0);

    writeUserPolicy('{\n  "allow": [\n    {"rule": "shell_exec(ls *)", "examples": {"notMatch": ["ls; rm -rf /"], "match": ["lsof"]}}\n  ]\n}');
    const tested = await runCliHere(['policy', 'test', '--workspace', dirs.workspace], dirs.home);
    expect(tested.code).toBe(1);
    expect(tested.stderr).toContain(`${join(dirs.home, 'policy.json')} line 3, column 14: the rule "shell_exec(ls *)" does not match its example "lsof". Fix:`);

    // A refused file's denies are not in force either: check says so beside its decision, not only on stderr.
    writeUserPolicy('{"deny": ["shell_exec(git push *)"], "alow": []}');
    const typo = await check('shell_exec', { command: 'git push' });
    expect(typo.stdout).toMatch(/^decision ask$/m);
    expect(typo.stdout).toContain(`refused  ${join(dirs.home, 'policy.json')}: none of its rules count until it is fixed`);
  });

  it('trust makes a project file count, until it changes', async () => {
    const project = join(dirs.workspace, '.toolgate', 'policy.json');
    mkdirSync(join(dirs.workspace, '.toolgate'));
    writeFileSync(project, JSON.stringify({ allow: ['write_file(src/**)'] }));
    const write = { path: 'src/a.ts', content: '' };
    const untrusted = await check('write_file', write);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toContain('is not trusted');
    const trusted = await runCliHere(['policy', 'trust', '--workspace', dirs.workspace], dirs.home);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain('allow write_file(src/**)');
    expect((await check('write_file', write)).code).toBe(0);
    writeFileSync(project, JSON.stringify({ allow: ['write_file(src/**)', 'shell_exec'] }));
    expect((await check('write_file', write)).code).toBe(1);
  });

  it("without --workspace judges for the running gate's workspace, and says which folder it used when no gate runs", async () => {
    mkdirSync(join(dirs.workspace, '.toolgate'));
    writeFileSync(join(dirs.workspace, '.toolgate', 'policy.json'), JSON.stringify({ allow: ['write_file(src/**)'] }));
    // The CLI runs in another folder (the repository): only the gate's workspace has this project file.
    const alone = await runCli(['policy', 'trust'], dirs.home);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain(`no gate is running for ${dirs.home}; judging for the workspace`);
    expect(alone.stderr).toContain('(the current folder)');
    const served = await spawnServe(dirs);
    try {
      const trusted = await runCli(['policy', 'trust'], dirs.home);
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(trusted.stdout).toContain(join(dirs.workspace, '.toolgate', 'policy.json'));
      expect(trusted.stderr).not.toContain('no gate is running');
      const listed = await runCli(['policy', 'list'], dirs.home);
      expect(listed.stdout).toContain('allow write_file(src/**)');
      expect((await runCli(['policy', 'check', 'write_file', JSON.stringify({ path: 'src/a.ts', content: '' })], dirs.home)).code).toBe(0);
    } finally {
      await served.stop();
    }
  });
});

describe('serve --grant RULE --mode', () => {
  it('a rule given as --grant runs its calls unasked; a bad one refuses the start', async () => {
    const served = await spawnServe(dirs, ['--grant', 'write_file(notes.md)', '--mode', 'permissive']);
    try {
      expect(served.stdout()).toContain('permissive mode');
      const client = await connectMcp(served.mcpUrl, readToken(dirs.home));
      const written = await client.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: 'hi' } });
      expect(written.isError).toBe(false);
      expect(textOf(written)).toContain('notes.md');
      await client.close();
    } finally {
      await served.stop();
    }
    const refused = await runCli(['serve', '--workspace', dirs.workspace, '--port', '0', '--grant', 'shell_exec(git status'], dirs.home);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--grant shell_exec(git status: ');
    expect(refused.stderr).toContain('closing parenthesis');
  });
});
