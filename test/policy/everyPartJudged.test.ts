/**
 * A call is judged by every part of it (each command, redirection, path, URL): a bare rule of a tool
 * holds every part, a deny or ask of one part holds the whole call, and an allow holds only when it
 * can see every part. Each case below is the one call where the decision turns on that rule.
 */
import { describe, expect, it } from 'vitest';
import { decideCall, decideShell, useUserPolicy } from './policyFixture';

const policy = useUserPolicy();
const withUserPolicy = policy.withUserPolicy;

describe('a bare rule of a tool holds every call of it, whatever parts it has', () => {
  it('a bare deny holds a fetch by its URL, a shell line, a line the reader refuses, and a file by its path', async () => {
    await withUserPolicy({ deny: ['http_fetch', 'shell_exec', 'read_file', 'write_file'] });
    expect((await decideCall(policy.engine(), 'http_fetch', { url: 'https://example.com/a' })).decision).toBe('deny');
    expect((await decideShell(policy.engine(), 'ls')).decision).toBe('deny');
    expect((await decideShell(policy.engine(), 'echo $((x))')).decision).toBe('deny');
    expect((await decideCall(policy.engine(), 'read_file', { path: 'notes.txt' })).decision).toBe('deny');
    expect((await decideShell(policy.engine(), 'cat notes.txt')).decision).toBe('deny');
  });

  it('a bare ask holds a line the reader refuses, and a redirection by the tool it writes with', async () => {
    await withUserPolicy({ allow: ['shell_exec'], ask: ['write_file'] });
    expect((await decideShell(policy.engine(), 'echo hi > out.txt')).decision).toBe('ask');
    expect((await decideShell(policy.engine(), 'echo hi')).decision).toBe('allow');
  });

  it('a bare allow covers a file by its path and a fetch by its URL', async () => {
    await withUserPolicy({ allow: ['write_file', 'http_fetch'] });
    expect((await decideCall(policy.engine(), 'write_file', { path: 'notes.txt', content: '' })).decision).toBe('allow');
    expect((await decideCall(policy.engine(), 'http_fetch', { url: 'https://example.com/a' })).decision).toBe('allow');
  });
});

describe('an ask reads a command as broadly as a deny does', () => {
  it('holds a command behind a wrapper or another spelling of its flags, which the allow alone lets through', async () => {
    const lines = ['rm -r -f build', 'rm --recursive --force build', 'timeout 5 rm -rf build'];
    await withUserPolicy({ allow: ['shell_exec(rm *)', 'shell_exec(timeout *)'] });
    for (const line of lines) expect({ line, decision: (await decideShell(policy.engine(), line)).decision }).toEqual({ line, decision: 'allow' });
    await withUserPolicy({ allow: ['shell_exec(rm *)', 'shell_exec(timeout *)'], ask: ['shell_exec(rm -rf *)'] });
    for (const line of lines) expect({ line, decision: (await decideShell(policy.engine(), line)).decision }).toEqual({ line, decision: 'ask' });
  });
});

describe('an ask of a path holds every tool that reaches it', () => {
  it('asks about a file a shell command reads, though the command itself is allowed', async () => {
    await withUserPolicy({ allow: ['shell_exec(cat *)'] });
    expect((await decideShell(policy.engine(), 'cat secrets/key')).decision).toBe('allow');
    await withUserPolicy({ allow: ['shell_exec(cat *)', 'read_file'], ask: ['read_file(secrets/**)'] });
    expect((await decideShell(policy.engine(), 'cat secrets/key')).decision).toBe('ask');
    expect((await decideShell(policy.engine(), 'cat notes.txt')).decision).toBe('allow');
    expect((await decideCall(policy.engine(), 'read_file', { path: 'secrets/key' })).decision).toBe('ask');
  });
});

describe('an allow holds only what it can see', () => {
  it('a line the reader refuses is never allowed by the allow its first word matches', async () => {
    await withUserPolicy({ allow: ['shell_exec(echo *)'] });
    expect((await decideShell(policy.engine(), 'echo ok')).decision).toBe('allow');
    expect((await decideShell(policy.engine(), 'echo $((x))')).decision).toBe('ask');
  });

  it('a redirection to a file known only when the line runs is not allowed by any write allow', async () => {
    await withUserPolicy({ allow: ['shell_exec(echo *)', 'write_file', 'write_file(**)'] });
    expect((await decideShell(policy.engine(), 'echo hi > out.txt')).decision).toBe('allow');
    expect((await decideShell(policy.engine(), 'echo hi > "$OUT"')).decision).toBe('ask');
  });

  it('a file known only when the line runs is asked about, and with a deny or ask of reading no allow is claimed for it', async () => {
    await withUserPolicy({ allow: ['shell_exec(cat *)'] });
    // Without any rule on reading, the allow matched and the person decides only where the file is.
    expect(await decideShell(policy.engine(), 'cat $F')).toMatchObject({ decision: 'ask', reason: expect.stringContaining('although allowed') });
    for (const guard of [{ deny: ['read_file(secrets/**)'] }, { ask: ['read_file(secrets/**)'] }]) {
      await withUserPolicy({ allow: ['shell_exec(cat *)'], ...guard });
      expect((await decideShell(policy.engine(), 'cat notes.txt')).decision).toBe('allow');
      const unknown = await decideShell(policy.engine(), 'cat $F');
      expect(unknown.decision).toBe('ask');
      // The prompt must not tell the person an allow covers a file that a deny might hold.
      expect(unknown.reason).not.toContain('although allowed');
    }
  });
});
