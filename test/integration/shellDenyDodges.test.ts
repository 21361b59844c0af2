/**
 * Deny rules against what bash and git really run, through a real gate: the official MCP client as
 * the agent calls shell_exec, real bash runs in the sandbox, and nobody is at the console. With the
 * user's `deny: rm -rf *`, `deny: git push *`, `allow: rm *`, `allow: git *`, a glob bash turns
 * into `-rf`, a shortened GNU long option, braces around quoted options, git's send-pack, a computed
 * subcommand and an alias from the repository's config are each refused by the deny (the victim
 * stays, the remote gets nothing), as is a long brace range whose last word a path deny names, and
 * the plain allowed form still runs unasked. A file the repository keeps in its history is
 * not read out of it past a deny of its folder (git show REV:path, git log -p, git clone).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
  gate = await startTestGate({
    userPolicy: {
      allow: ['shell_exec(rm *)', 'shell_exec(git *)', 'shell_exec(echo *)', 'shell_exec(split *)', 'shell_exec(tar *)', 'shell_exec(sed *)', 'shell_exec(grep *)', 'shell_exec(cat *)', 'write_file(**)'],
      deny: [
        { rule: 'shell_exec(rm -rf *)', reason: 'recursive deletes need review' },
        { rule: 'shell_exec(git push *)', reason: 'pushes need review' },
        { rule: 'write_file(kept100/**)', reason: 'kept100 stays' },
        { rule: 'read_file(private/**)', reason: 'private stays private' },
      ],
    },
  });
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

/** A folder with a file two levels down, in the workspace. */
function victimTree(name: string): string {
  const folder = join(gate.dirs.workspace, name);
  mkdirSync(join(folder, 'inner'), { recursive: true });
  writeFileSync(join(folder, 'inner', 'keep.txt'), 'keep\n');
  return folder;
}

function git(args: string[], cwd = gate.dirs.workspace): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: gate.dirs.outside } });
}

describe('a deny of rm -rf * holds what bash makes of the line', () => {
  it.each([
    ['rm -r? victim1', 'victim1'],
    ['rm --rec --for victim2', 'victim2'],
    ['rm {"-r",-f} victim4', 'victim4'],
    // A stepped range: bash makes `rm` of it.
    ['{r..r..1}m -rf victim5', 'victim5'],
    // A command handed to an allowed program in an option (split runs its --filter, abbreviated here, through the shell).
    ['split --filt="rm -rf victim6" -l 1 victim6/inner/keep.txt', 'victim6'],
    // The same with the command only known when the line runs.
    ['X="rm -rf victim7"; tar -xf /dev/null --to-command="$X"', 'victim7'],
    // A command a sed script runs (its e command).
    ["sed '1e rm -rf victim8' victim8/inner/keep.txt", 'victim8'],
  ])('%j is refused by the deny, unasked, and the tree stays', async (command, victim) => {
    const folder = victimTree(victim);
    // bash globs -r? into -rf when a file of that name is in the folder.
    writeFileSync(join(gate.dirs.workspace, '-rf'), '');
    const result = await shell(command);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('denied by `shell_exec(rm -rf *)`');
    expect(existsSync(join(folder, 'inner', 'keep.txt'))).toBe(true);
    expect(prompts).toEqual([]);
  });

  it('a range of a hundred words is judged whole: the deny of its hundredth word holds the line', async () => {
    const folder = victimTree('kept100');
    const result = await shell('rm -r kept{1..100}');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('denied by `write_file(kept100/**)`');
    expect(existsSync(join(folder, 'inner', 'keep.txt'))).toBe(true);
    expect(prompts).toEqual([]);
  });

  it.each([['rm -r "kept"{100,}'], ['echo x > kept{100..100}/new.txt'], ["sed -n 'w kept100/new.txt' kept100/inner/keep.txt"]])('%j (braces beside quotes, in a redirection, a file a sed script writes) is refused by the deny of kept100', async (command) => {
    const folder = victimTree('kept100');
    const result = await shell(command);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('denied by `write_file(kept100/**)`');
    expect(existsSync(join(folder, 'inner', 'keep.txt'))).toBe(true);
    expect(existsSync(join(folder, 'new.txt'))).toBe(false);
    expect(prompts).toEqual([]);
  });

  it('a recursive read that follows links (grep -R) is refused by the deny of the folder a link below it leads to; one that does not (grep -r) runs', async () => {
    mkdirSync(join(gate.dirs.workspace, 'private'), { recursive: true });
    writeFileSync(join(gate.dirs.workspace, 'private', 'key.txt'), 'KEY-7f3a\n');
    mkdirSync(join(gate.dirs.workspace, 'notes'), { recursive: true });
    writeFileSync(join(gate.dirs.workspace, 'notes', 'todo.txt'), 'no key here\n');
    symlinkSync('../private', join(gate.dirs.workspace, 'notes', 'evil'));
    const followed = await shell('grep -R KEY notes');
    expect(followed.isError).toBe(true);
    expect(textOf(followed)).toContain('denied by `read_file(private/**)`');
    expect(textOf(followed)).not.toContain('KEY-7f3a');
    const unfollowed = await shell('grep -r KEY notes');
    expect(unfollowed.isError).toBe(false);
    expect(JSON.stringify(unfollowed.structuredContent)).not.toContain('KEY-7f3a');
    expect(prompts).toEqual([]);
  });

  it('a path an archive extracted earlier on the line may have made a link is not read unasked', async () => {
    mkdirSync(join(gate.dirs.workspace, 'private'), { recursive: true });
    writeFileSync(join(gate.dirs.workspace, 'private', 'key.txt'), 'KEY-7f3a\n');
    // An archive whose one member is the link notes2/evil -> ../private, made outside the workspace.
    const staging = join(gate.dirs.outside, 'staging');
    mkdirSync(join(staging, 'notes2'), { recursive: true });
    symlinkSync('../private', join(staging, 'notes2', 'evil'));
    execFileSync('tar', ['-cf', join(gate.dirs.workspace, 'links.tar'), '-C', staging, 'notes2']);
    const result = await shell('tar -xf links.tar && cat notes2/evil/key.txt');
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).not.toContain('KEY-7f3a');
    // Where it leads was unknown when judged, and a deny might hold it: a person was asked (nobody answered).
    expect(prompts.length).toBe(1);
    prompts.length = 0;
  });

  it('the plain form the allow names still runs unasked', async () => {
    const folder = victimTree('victim3');
    writeFileSync(join(folder, 'file'), 'x\n');
    const result = await shell('rm victim3/file');
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ exitCode: 0 });
    expect(existsSync(join(folder, 'file'))).toBe(false);
    expect(existsSync(join(folder, 'inner', 'keep.txt'))).toBe(true);
    expect(prompts).toEqual([]);
  });
});

describe('a deny of git push * holds what git makes of the line', () => {
  beforeAll(() => {
    git(['init', '-q', '--bare', 'remote.git']);
    git(['init', '-q', '-b', 'main', 'work']);
    git(['-c', 'user.email=a@example.com', '-c', 'user.name=a', 'commit', '-q', '--allow-empty', '-m', 'one'], join(gate.dirs.workspace, 'work'));
    // An alias set earlier in the repository's own config: `git p` is `git push` there.
    git(['config', 'alias.p', 'push'], join(gate.dirs.workspace, 'work'));
  });

  it.each([['git -C work send-pack ../remote.git main'], ['git -C work ${X:-push} ../remote.git main'], ['git -C work p ../remote.git main']])(
    '%j is refused by the deny, unasked, and the remote gets nothing',
    async (command) => {
      const result = await shell(command);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('denied by `shell_exec(git push *)`');
      expect(git(['--git-dir', 'remote.git', 'for-each-ref'])).toBe('');
      expect(prompts).toEqual([]);
    },
  );

  it('a git command the allow names still runs unasked', async () => {
    const result = await shell('git -C work log --format=%s');
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ exitCode: 0, stdout: expect.stringContaining('one') });
    expect(prompts).toEqual([]);
  });
});

describe('a deny of a folder holds git reading it from the repository', () => {
  beforeAll(() => {
    // The workspace is a repository whose history holds private/key.txt, gone from the working files.
    mkdirSync(join(gate.dirs.workspace, 'private'), { recursive: true });
    writeFileSync(join(gate.dirs.workspace, 'private', 'key.txt'), 'KEY-7f3a\n');
    mkdirSync(join(gate.dirs.workspace, 'docs'), { recursive: true });
    writeFileSync(join(gate.dirs.workspace, 'docs', 'readme.txt'), 'hello\n');
    git(['init', '-q', '-b', 'main']);
    git(['add', 'private/key.txt', 'docs/readme.txt']);
    git(['-c', 'user.email=a@example.com', '-c', 'user.name=a', 'commit', '-q', '-m', 'keys']);
    git(['rm', '-q', '--cached', 'private/key.txt']);
    git(['-c', 'user.email=a@example.com', '-c', 'user.name=a', 'commit', '-q', '-m', 'no keys']);
    execFileSync('rm', ['-r', join(gate.dirs.workspace, 'private')]);
  });

  it.each([
    ['git show HEAD~1:private/key.txt'],
    ['git cat-file -p HEAD~1:private/key.txt'],
    ['git log -p'],
    // An unambiguous prefix of --patch, as git takes it.
    ['git log --pat'],
    ['git grep KEY HEAD~1'],
    ['cd docs && git show HEAD~1:private/key.txt'],
    ['git archive HEAD~1 | tar -xO'],
    ['git clone -q . copy && cat copy/private/key.txt'],
    // Writing the work tree copies stored content out, under any name the line gives it.
    ['git checkout HEAD~1:private -- key.txt && cat key.txt'],
    ['git restore --source=HEAD~1:private key.txt && cat key.txt'],
  ])('%j is refused by the deny, unasked, and nothing of the file comes out', async (command) => {
    const result = await shell(command);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('denied by `read_file(private/**)`');
    expect(JSON.stringify(result)).not.toContain('KEY-7f3a');
    expect(existsSync(join(gate.dirs.workspace, 'copy'))).toBe(false);
    expect(prompts).toEqual([]);
  });

  it('a repository pointed to elsewhere on the line (an exported GIT_DIR, a .git file) is not read unasked', async () => {
    writeFileSync(join(gate.dirs.workspace, 'docs', '.git'), `gitdir: ${join(gate.dirs.workspace, '.git')}\n`);
    for (const command of ['export GIT_DIR="$PWD/.git"; cd / && git show HEAD~1:private/key.txt', 'cd docs && git show HEAD~1:private/key.txt']) {
      const result = await shell(command);
      expect(result.isError, command).toBe(true);
      expect(JSON.stringify(result), command).not.toContain('KEY-7f3a');
      // Which stored files it reads is known only when it runs: a person was asked (nobody answered).
      expect(prompts.length, command).toBe(1);
      prompts.length = 0;
    }
    rmSync(join(gate.dirs.workspace, 'docs', '.git'));
  });

  it('git commands that print no stored content still run unasked', async () => {
    for (const command of ['git log --oneline', 'git status --short', 'git diff --stat HEAD~1', 'git show-ref']) {
      const result = await shell(command);
      expect(result.isError, command).toBe(false);
      expect(result.structuredContent, command).toMatchObject({ exitCode: 0 });
    }
    expect(prompts).toEqual([]);
  });
});

describe('a deny of a folder holds the code a command hands on, and git rewriting the work tree', () => {
  beforeAll(() => {
    // The workspace repository (above) now tracks kept100, whose file has a change not committed, and
    // holds an untracked file in it and a private file now.
    victimTree('kept100');
    git(['add', 'kept100']);
    git(['-c', 'user.email=a@example.com', '-c', 'user.name=a', 'commit', '-q', '-m', 'kept']);
    writeFileSync(join(gate.dirs.workspace, 'kept100', 'inner', 'keep.txt'), 'changed\n');
    writeFileSync(join(gate.dirs.workspace, 'kept100', 'untracked.txt'), 'mine\n');
    mkdirSync(join(gate.dirs.workspace, 'private'), { recursive: true });
    writeFileSync(join(gate.dirs.workspace, 'private', 'now.txt'), 'NOW-91c2\n');
  });

  it.each([
    ['bash -c "cd private && cat now.txt"'],
    ['tar -I "cat private/now.txt" -cf docs.tar docs'],
    ['git -c core.pager="cat private/now.txt" -P log'],
    // A prefix of --upload-pack, as git takes it.
    ['git ls-remote --upload-p="cat private/now.txt" .'],
    ['git fetch --upload-pack "cat private/now.txt" .'],
    // --exec, the older name of --upload-pack.
    ['git ls-remote --exec="cat private/now.txt" nowhere'],
  ])('%j (shell text handed on) is refused by the deny of the file it reads, unasked, and nothing of it comes out', async (command) => {
    const result = await shell(command);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('denied by `read_file(private/**)`');
    expect(JSON.stringify(result)).not.toContain('NOW-91c2');
    expect(prompts).toEqual([]);
  });

  it.each([
    ['git stash'],
    ['git reset --har'],
    ['git checkout HEAD -- "*.txt"'],
    ['git restore :/'],
    ['git clean -fdx'],
    // Spellings where what looks like a sparing option is not one: a message, -e's value, undone by --no-.
    ['git stash -m list'],
    ['git clean -fd -e -n'],
    ['git rm --cached --no-cached -q ":/kept100/inner/keep.txt"'],
  ])(
    '%j (git rewriting files it does not name) is refused by a deny, unasked, and nothing there changes',
    async (command) => {
      const result = await shell(command);
      expect(result.isError).toBe(true);
      // What only removes files is held by the deny of writing kept100; what also copies stored content out, by the deny of reading private first.
      const deny = /^git (clean|rm) /.test(command) ? 'write_file(kept100/**)' : 'read_file(private/**)';
      expect(textOf(result)).toContain(`denied by \`${deny}\``);
      expect(readFileSync(join(gate.dirs.workspace, 'kept100', 'inner', 'keep.txt'), 'utf8')).toBe('changed\n');
      expect(existsSync(join(gate.dirs.workspace, 'kept100', 'untracked.txt'))).toBe(true);
      expect(prompts).toEqual([]);
    },
  );

  it('git config setting an alias or a pager in the repository’s settings asks a person (nobody answered here), and the settings stay as they were', async () => {
    const before = readFileSync(join(gate.dirs.workspace, '.git', 'config'), 'utf8');
    for (const command of ['git config alias.x "!cat private/now.txt"', 'git config --add core.pager "cat private/now.txt"']) {
      const result = await shell(command);
      expect(result.isError, command).toBe(true);
      expect(prompts.length, command).toBe(1);
      prompts.length = 0;
    }
    expect(readFileSync(join(gate.dirs.workspace, '.git', 'config'), 'utf8')).toBe(before);
  });

  it('git commands that leave the work tree as it is still run unasked', async () => {
    for (const command of ['git stash list', 'git restore --staged docs/readme.txt', 'git clean -n', 'git checkout -q -b topic', 'git config --get core.bare']) {
      const result = await shell(command);
      expect(result.isError, command).toBe(false);
      expect(result.structuredContent, command).toMatchObject({ exitCode: 0 });
    }
    expect(prompts).toEqual([]);
  });
});
