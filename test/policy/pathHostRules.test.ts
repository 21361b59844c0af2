import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { decideCall, decideShell, useUserPolicy } from './policyFixture';

const policy = useUserPolicy();
const withUserPolicy = policy.withUserPolicy;

describe('path rules', () => {
  it('anchors bare and ./ globs at the workspace', async () => {
    await withUserPolicy({ allow: ['write_file(src/**)', 'edit_file(./docs/**)'] });
    expect((await decideCall(policy.engine(), 'write_file', { path: 'src/a/b.ts', content: '' })).decision).toBe('allow');
    expect((await decideCall(policy.engine(), 'write_file', { path: 'lib/b.ts', content: '' })).decision).toBe('ask');
    expect((await decideCall(policy.engine(), 'write_file', { path: 'src/../lib/b.ts', content: '' })).decision).toBe('ask');
    expect((await decideCall(policy.engine(), 'edit_file', { path: 'docs/x.md', edits: [] })).decision).toBe('allow');
  });

  it('protected paths always ask, whatever an allow says', async () => {
    await withUserPolicy({ allow: ['write_file(**)', 'shell_exec(echo *)'] });
    const decided = await decideCall(policy.engine(), 'write_file', { path: '.git/hooks/pre-commit', content: '' });
    expect(decided.decision).toBe('ask');
    expect(decided.rule).toBe('protected:.git');
    expect((await decideShell(policy.engine(), 'echo evil > .vscode/tasks.json')).decision).toBe('ask');
    expect((await decideShell(policy.engine(), 'echo fine > notes.txt')).decision).toBe('allow');
  });

  it('deny rules still deny protected paths', async () => {
    await withUserPolicy({ deny: ['write_file(.git/**)'] });
    expect((await decideCall(policy.engine(), 'write_file', { path: '.git/config', content: '' })).decision).toBe('deny');
  });

  it('judges redirects as writes: into a denied path the line is denied', async () => {
    await withUserPolicy({ allow: ['shell_exec(echo *)', 'write_file(**)'], deny: ['write_file(secrets/**)', 'read_file(~/.ssh/**)'] });
    const decided = await decideShell(policy.engine(), 'echo token >> secrets/keys');
    expect(decided.decision).toBe('deny');
    expect(decided.provenance?.matched).toBe('>> secrets/keys');
    expect((await decideShell(policy.engine(), 'echo x 2> secrets/err')).decision).toBe('deny');
    expect((await decideShell(policy.engine(), 'echo < ~/.ssh/id_rsa')).decision).toBe('deny');
  });

  it('a redirect needs a write allow of its own', async () => {
    await withUserPolicy({ allow: ['shell_exec(echo *)'] });
    expect((await decideShell(policy.engine(), 'echo hi > out.txt')).decision).toBe('ask');
    expect((await decideShell(policy.engine(), 'echo hi > /dev/null')).decision).toBe('allow');
    expect((await decideShell(policy.engine(), 'echo hi > $OUT')).decision).toBe('ask');
  });

  it('symlinked paths are judged where they lead', async () => {
    mkdirSync(join(policy.folders().workspace, 'secrets'));
    writeFileSync(join(policy.folders().workspace, 'secrets', 'key'), 'k');
    symlinkSync('secrets', join(policy.folders().workspace, 'innocent'));
    mkdirSync(join(policy.folders().workspace, 'src'));
    mkdirSync(join(policy.folders().workspace, 'private'));
    symlinkSync('../private', join(policy.folders().workspace, 'src', 'escape'));
    await withUserPolicy({ allow: ['write_file(src/**)', 'read_file'], deny: ['read_file(secrets/**)'] });
    expect((await decideCall(policy.engine(), 'read_file', { path: 'innocent/key' })).decision).toBe('deny');
    expect((await decideCall(policy.engine(), 'write_file', { path: 'src/escape/x', content: '' })).decision).toBe('ask');
    expect((await decideCall(policy.engine(), 'write_file', { path: 'src/ok.ts', content: '' })).decision).toBe('allow');
  });

  it('~/ anchors at home and // at the root', async () => {
    await withUserPolicy({ deny: ['read_file(~/.ssh/**)', 'read_file(//etc/**)'] });
    expect((await decideCall(policy.engine(), 'read_file', { path: join(policy.folders().userHome, '.ssh', 'id_rsa') })).decision).toBe('deny');
    expect((await decideCall(policy.engine(), 'read_file', { path: '/etc/passwd' })).decision).toBe('deny');
    expect((await decideCall(policy.engine(), 'read_file', { path: 'etc/passwd' })).decision).toBe('allow');
  });
});

describe('host rules', () => {
  beforeEach(async () => {
    await withUserPolicy({ allow: ['http_fetch(domain:*.python.org)', 'http_fetch(domain:localhost:8080)'] });
  });

  it('matches subdomains label by label on the default port', async () => {
    expect((await decideCall(policy.engine(), 'http_fetch', { url: 'https://docs.python.org/3/' })).decision).toBe('allow');
    expect((await decideCall(policy.engine(), 'http_fetch', { url: 'https://DOCS.python.org./3/' })).decision).toBe('allow');
  });

  it.each([
    ['https://docs.python.org.evil.net/'],
    ['https://evilpython.org/'],
    ['https://python.org/'],
    ['https://docs.python.org:8443/'],
    ['https://docs.python.org@evil.net/'],
    ['http://localhost/'],
    ['http://localhost:8081/'],
  ])('look-alike host or port %s is not allowed', async (url) => {
    expect((await decideCall(policy.engine(), 'http_fetch', { url })).decision).toBe('ask');
  });

  it('a named port matches only that port', async () => {
    expect((await decideCall(policy.engine(), 'http_fetch', { url: 'http://localhost:8080/x' })).decision).toBe('allow');
  });
});

describe('bare tool rules', () => {
  it('match every call of the tool', async () => {
    await withUserPolicy({ deny: ['calculator'] });
    const decided = await decideCall(policy.engine(), 'calculator', { expression: '1+1' });
    expect(decided.decision).toBe('deny');
    expect(decided.provenance).toMatchObject({ rule: 'calculator', source: { layer: 'user', line: 3 } });
  });
});
