import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ToolManifest } from '../../shared/manifest';
import { callParts } from '../../main/policy/callParts';
import { compileRule } from '../../main/policy/compiledRule';
import { accessRulesOf, judgeCall } from '../../main/policy/judgeCall';
import { builtinLookup, decideCall, decideShell, useUserPolicy } from './policyFixture';

const policy = useUserPolicy();
const withUserPolicy = policy.withUserPolicy;

/** ws/real holds key.txt; ws/secret is a symlink to it; ws/src is an ordinary folder. */
beforeEach(() => {
  const { workspace } = policy.folders();
  mkdirSync(join(workspace, 'real'));
  writeFileSync(join(workspace, 'real', 'key.txt'), 'k');
  symlinkSync('real', join(workspace, 'secret'));
  mkdirSync(join(workspace, 'src'));
  writeFileSync(join(workspace, 'src', 'a.ts'), 'a');
});

describe('a path rule holds every path that resolves to the same file', () => {
  it('a deny through a symlinked folder holds the real folder, for read_file and the shell', async () => {
    await withUserPolicy({ allow: ['read_file', 'shell_exec(cat *)'], deny: ['read_file(secret/**)'] });
    const engine = policy.engine();
    expect((await decideCall(engine, 'read_file', { path: 'real/key.txt' })).decision).toBe('deny');
    expect((await decideCall(engine, 'read_file', { path: 'secret/key.txt' })).decision).toBe('deny');
    expect((await decideShell(engine, 'cat < real/key.txt')).decision).toBe('deny');
    expect((await decideShell(engine, 'cat real/key.txt')).decision).toBe('deny');
    expect((await decideShell(engine, 'cat real/*.txt')).decision).toBe('deny');
    expect((await decideShell(engine, 'cd real && cat key.txt')).decision).toBe('deny');
    expect((await decideCall(engine, 'read_file', { path: 'src/a.ts' })).decision).toBe('allow');
    expect((await decideShell(engine, 'cat src/a.ts')).decision).toBe('allow');
  });

  it('a deny on the real folder holds a symlink to it, and a file not made yet by its nearest parent', async () => {
    await withUserPolicy({ allow: ['write_file(**)', 'shell_exec(echo *)'], deny: ['write_file(real/**)'] });
    const engine = policy.engine();
    expect((await decideCall(engine, 'write_file', { path: 'secret/new/deeper.txt', content: 'x' })).decision).toBe('deny');
    expect((await decideShell(engine, 'echo x > secret/new.txt')).decision).toBe('deny');
    expect((await decideCall(engine, 'write_file', { path: 'src/new.ts', content: 'x' })).decision).toBe('allow');
  });

  it('a link made after the rule loaded counts', async () => {
    await withUserPolicy({ allow: ['read_file'], deny: ['read_file(later/**)'] });
    expect((await decideCall(policy.engine(), 'read_file', { path: 'real/key.txt' })).decision).toBe('allow');
    symlinkSync('real', join(policy.folders().workspace, 'later'));
    // Where a rule's folder leads is looked up again after a short window (50 ms); wait past it.
    await new Promise((resolveWait) => setTimeout(resolveWait, 120));
    expect((await decideCall(policy.engine(), 'read_file', { path: 'real/key.txt' })).decision).toBe('deny');
  });

  it('a deny of a folder holds another name (hard link) of a file below it, read, written or reached by a recursive read', async () => {
    const { workspace, root } = policy.folders();
    mkdirSync(join(workspace, 'notes'));
    mkdirSync(join(workspace, 'real', 'sub'));
    linkSync(join(workspace, 'real', 'key.txt'), join(workspace, 'notes', 'key.txt'));
    linkSync(join(workspace, 'real', 'key.txt'), join(root, 'key.txt'));
    linkSync(join(workspace, 'src', 'a.ts'), join(workspace, 'a-copy.ts'));
    await withUserPolicy({ allow: ['read_file', 'write_file(**)', 'shell_exec(cat *)', 'shell_exec(echo *)', 'shell_exec(grep *)'], deny: ['read_file(real/**)', 'write_file(real/**)'] });
    const engine = policy.engine();
    expect((await decideCall(engine, 'read_file', { path: 'notes/key.txt' })).decision).toBe('deny');
    expect((await decideShell(engine, 'cat notes/key.txt')).decision).toBe('deny');
    expect((await decideShell(engine, `cat ${join(root, 'key.txt')}`)).decision).toBe('deny');
    expect((await decideShell(engine, 'echo x >> notes/key.txt')).decision).toBe('deny');
    expect((await decideCall(engine, 'write_file', { path: 'notes/key.txt', content: 'x' })).decision).toBe('deny');
    expect((await decideShell(engine, 'grep -r k notes')).decision).toBe('deny');
    // Names that all lie outside the folder, and a folder holding none of its files' other names.
    expect((await decideShell(engine, 'cat a-copy.ts src/a.ts')).decision).toBe('allow');
    expect((await decideShell(engine, 'grep -r a src')).decision).toBe('allow');
    // A file made in the folder, or a folder below it, just after the folder was looked at, and given another name at once.
    for (const made of [join('real', 'new.txt'), join('real', 'sub', 'new.txt')]) {
      writeFileSync(join(workspace, made), 'made a moment ago');
      linkSync(join(workspace, made), join(workspace, `${made.replaceAll('/', '-')}-link`));
      expect((await decideCall(engine, 'read_file', { path: `${made.replaceAll('/', '-')}-link` })).decision, made).toBe('deny');
    }
  });

  it('an allow through a symlinked folder is not widened to where the link leads', async () => {
    await withUserPolicy({ allow: ['write_file(secret/**)'] });
    expect((await decideCall(policy.engine(), 'write_file', { path: 'real/key.txt', content: 'x' })).decision).toBe('ask');
    expect((await decideCall(policy.engine(), 'write_file', { path: 'secret/key.txt', content: 'x' })).decision).toBe('ask');
  });
});

describe('a read rule holds every tool and command that reads there', () => {
  it('a read_file deny on a folder holds search_files and list_dir of it, and searches of a folder holding it', async () => {
    await withUserPolicy({ deny: ['read_file(real/**)'] });
    const engine = policy.engine();
    expect((await decideCall(engine, 'search_files', { query: 'k', path: 'real' })).decision).toBe('deny');
    expect((await decideCall(engine, 'search_files', { query: 'k', path: 'secret' })).decision).toBe('deny');
    expect((await decideCall(engine, 'search_files', { query: 'k' })).decision).toBe('deny');
    expect((await decideCall(engine, 'list_dir', { path: 'real' })).decision).toBe('deny');
    expect((await decideCall(engine, 'list_dir', { path: '.', depth: 3 })).decision).toBe('deny');
    expect((await decideCall(engine, 'list_dir', { path: '.' })).decision).toBe('allow');
    expect((await decideCall(engine, 'search_files', { query: 'k', path: 'src' })).decision).toBe('allow');
    // edit_file reads the file it edits (a failed match tells what is not there).
    expect((await decideCall(engine, 'edit_file', { path: 'real/key.txt', old: 'k', new: 'x' })).decision).toBe('deny');
  });

  it('a search_files deny holds read_file and shell readers too', async () => {
    await withUserPolicy({ allow: ['shell_exec(grep *)', 'shell_exec(head *)'], deny: ['search_files(real/**)'] });
    const engine = policy.engine();
    expect((await decideCall(engine, 'read_file', { path: 'secret/key.txt' })).decision).toBe('deny');
    expect((await decideShell(engine, 'grep -r k .')).decision).toBe('deny');
    expect((await decideShell(engine, 'head -n 1 secret/key.txt')).decision).toBe('deny');
    expect((await decideShell(engine, 'grep k src/a.ts')).decision).toBe('allow');
  });

  it('a read deny does not hold writes, nor a write deny reads', async () => {
    await withUserPolicy({ allow: ['shell_exec(cat *)', 'shell_exec(touch *)'], deny: ['read_file(real/**)', 'delete_path(src/**)'] });
    const engine = policy.engine();
    expect((await decideShell(engine, 'touch real/new')).decision).toBe('allow');
    expect((await decideShell(engine, 'cat src/a.ts')).decision).toBe('allow');
  });

  it('an unknown program counts every argument as read and written; a path known only when the line runs asks instead of being allowed', async () => {
    await withUserPolicy({ allow: ['shell_exec(frob *)', 'shell_exec(cat *)'], deny: ['read_file(real/**)'] });
    const engine = policy.engine();
    expect((await decideShell(engine, 'frob --in=secret/key.txt')).decision).toBe('deny');
    expect((await decideShell(engine, 'frob real')).decision).toBe('deny');
    expect((await decideShell(engine, 'cat $F')).decision).toBe('ask');
  });

  it('with no path rule, a computed path written to changes nothing; one read from asks, as it may lie outside the workspace', async () => {
    await withUserPolicy({ allow: ['shell_exec(cat *)', 'shell_exec(rm *)'] });
    expect((await decideShell(policy.engine(), 'rm $F')).decision).toBe('allow');
    expect(await decideShell(policy.engine(), 'cat $F')).toMatchObject({ decision: 'ask', rule: 'outside-workspace' });
  });

  it('~user in a command is read through the passwd database: root\'s files are /root\'s', async () => {
    await withUserPolicy({ allow: ['shell_exec(cat *)'], deny: ['read_file(//root/**)'] });
    expect((await decideShell(policy.engine(), 'cat ~root/.bashrc')).decision).toBe('deny');
    expect((await decideShell(policy.engine(), "cat '~root/.bashrc'")).decision).toBe('allow');
  });
});

describe('a write rule holds every tool and command that writes there', () => {
  it('a write_file deny holds edit_file, delete_path, rm, cp and mv destinations, tee and >', async () => {
    await withUserPolicy({ allow: ['edit_file', 'delete_path', 'shell_exec(rm *)', 'shell_exec(cp *)', 'shell_exec(mv *)', 'shell_exec(tee *)', 'shell_exec(echo *)', 'write_file(**)'], deny: ['write_file(secret/**)'] });
    const engine = policy.engine();
    expect((await decideCall(engine, 'edit_file', { path: 'real/key.txt', old: 'k', new: 'x' })).decision).toBe('deny');
    expect((await decideCall(engine, 'delete_path', { path: 'real/key.txt' })).decision).toBe('deny');
    for (const line of ['rm real/key.txt', 'cp src/a.ts real/', 'mv real/key.txt src/', 'echo x | tee real/key.txt', 'echo x > real/key.txt', 'echo x >> secret/key.txt', 'rm -rf .']) {
      expect((await decideShell(engine, line)).decision, line).toBe('deny');
    }
    expect((await decideShell(engine, 'cp real/key.txt src/')).decision).toBe('allow');
  });

  it('a write into a protected path through a command argument asks, whatever an allow says', async () => {
    await withUserPolicy({ allow: ['shell_exec(touch *)'] });
    const decided = await decideShell(policy.engine(), 'touch .git/hooks/pre-commit');
    expect(decided.decision).toBe('ask');
    expect(decided.rule).toBe('protected:.git');
  });
});

describe('an upstream tool classed as reading files', () => {
  it('has its path-like arguments held by read deny rules', async () => {
    const { workspace, userHome } = policy.folders();
    const anchors = { workspace, home: userHome };
    const reader: ToolManifest = { ...builtinLookup('read_file')!, name: 'files__read_text_file', sideEffects: ['FsRead'], pathArguments: [] };
    const context = { tools: (name: string) => (name === reader.name ? reader : builtinLookup(name)), anchors };
    const deny = await compileRule('read_file(secret/**)', 'deny', { layer: 'user' }, context);
    const judge = (args: Record<string, unknown>) => judgeCall(reader, callParts(reader, args, {}, anchors), () => [], workspace, accessRulesOf([deny]));
    expect(judge({ path: join(workspace, 'real', 'key.txt') }).deny?.rule.text).toBe('read_file(secret/**)');
    expect(judge({ paths: ['src/a.ts', 'real/key.txt'] }).deny).toBeDefined();
    expect(judge({ path: join(workspace, 'src', 'a.ts') }).deny).toBeUndefined();
    const silent: ToolManifest = { ...reader, sideEffects: ['NetRead'] };
    expect(judgeCall(silent, callParts(silent, { path: join(workspace, 'real', 'key.txt') }, {}, anchors), () => [], workspace, accessRulesOf([deny])).deny).toBeUndefined();
  });
});
