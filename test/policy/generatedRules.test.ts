import { describe, expect, it } from 'vitest';
import { literalPathGlob } from '../../main/policy/pathRule';
import { literalShellRule } from '../../main/policy/shellRule';
import { decideCall, decideShell, useUserPolicy } from './policyFixture';

const policy = useUserPolicy();

describe('rules made from a call match that call only', () => {
  it('a saved command keeps its * literal', async () => {
    const saved = `shell_exec(${literalShellRule('rm *')})`;
    expect(saved).toBe('shell_exec(rm \\*)');
    await policy.withUserPolicy({ allow: [saved] });
    expect((await decideShell(policy.engine(), 'rm -rf /')).decision).toBe('ask');
    expect((await decideShell(policy.engine(), 'rm a b')).decision).toBe('ask');
  });

  it('a saved path escapes its glob characters', async () => {
    const saved = `write_file(${literalPathGlob('src/[id]/*.ts')})`;
    await policy.withUserPolicy({ allow: [saved] });
    expect((await decideCall(policy.engine(), 'write_file', { path: 'src/[id]/*.ts', content: '' })).decision).toBe('allow');
    expect((await decideCall(policy.engine(), 'write_file', { path: 'src/i/page.ts', content: '' })).decision).toBe('ask');
    expect((await decideCall(policy.engine(), 'write_file', { path: 'src/[id]/page.ts', content: '' })).decision).toBe('ask');
  });

  it('a session grant from a prompt is a rule like any other, with its approval as source', async () => {
    await policy.withUserPolicy({ deny: ['write_file(secrets/**)'] });
    await policy.engine().grantSession(`write_file(${literalPathGlob('secrets/a.txt')})`, 'approval-7');
    // deny beats allow, whichever layer: a grant never carves into a deny.
    expect((await decideCall(policy.engine(), 'write_file', { path: 'secrets/a.txt', content: '' })).decision).toBe('deny');
  });
});
