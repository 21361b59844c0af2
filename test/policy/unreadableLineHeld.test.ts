/**
 * A shell line the reader cannot read may run any command on any file, so every deny or ask of the
 * shell, or of reading or writing a path, holds it (fail closed): a deny of `rm` refuses
 * `rm -rf build $((i))` as it refuses `rm -rf build`, instead of leaving it to a person's approval.
 */
import { describe, expect, it } from 'vitest';
import { decideShell, useUserPolicy } from './policyFixture';

const policy = useUserPolicy();
const UNREADABLE = 'rm -rf build $((i))';

describe('a line the reader cannot read', () => {
  it('is denied by a deny of the shell, naming the rule and why it holds the line', async () => {
    await policy.withUserPolicy({ deny: ['shell_exec(rm *)'] });
    expect((await decideShell(policy.engine(), 'rm -rf build')).decision).toBe('deny');
    const decided = await decideShell(policy.engine(), UNREADABLE);
    expect(decided).toMatchObject({ decision: 'deny', provenance: { rule: 'shell_exec(rm *)' } });
    // Why first: the rule holds the line whole, not for anything the line names.
    expect(decided.reason).toMatch(/^the line cannot be judged command by command \(the command is unreadable: \$\(\(i\)\) evaluates .*\), so every deny rule that could apply holds it; denied by `shell_exec\(rm \*\)`/);
  });

  it('is denied by a deny of reading or of writing a path, and asked about by an ask of one', async () => {
    for (const rule of ['read_file(secrets/**)', 'write_file(src/**)', 'search_files(secrets/**)']) {
      await policy.withUserPolicy({ deny: [rule] });
      expect({ rule, decision: (await decideShell(policy.engine(), 'echo $((x))')).decision }).toEqual({ rule, decision: 'deny' });
    }
    await policy.withUserPolicy({ ask: ['read_file(secrets/**)'], deny: ['http_fetch(domain:example.com)'] });
    expect(await decideShell(policy.engine(), 'echo $((x))')).toMatchObject({ decision: 'ask', provenance: { rule: 'read_file(secrets/**)' } });
  });

  it('is left to the tier, never allowed, when no deny or ask could hold it', async () => {
    await policy.withUserPolicy({ allow: ['shell_exec', 'shell_exec(echo *)'], deny: ['http_fetch(domain:example.com)'] });
    expect(await decideShell(policy.engine(), 'echo $((x))')).toMatchObject({ decision: 'ask', rule: 'tier:RESTRICTED→ask' });
  });
});
