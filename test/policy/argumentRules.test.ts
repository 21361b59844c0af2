import { describe, expect, it } from 'vitest';
import { unlistedUpstream } from '../../main/policy/compiledRule';
import { useUserPolicy } from './policyFixture';

/** An upstream tool as the gate registers it once its server listed it. */
const createIssue = { ...unlistedUpstream('github__create_issue'), tier: 'ELEVATED' as const, sideEffects: ['NetWrite' as const] };

describe('rules naming upstream tools by their arguments', () => {
  const policy = useUserPolicy();

  async function decide(input: Record<string, unknown>) {
    const engine = policy.engine();
    return engine.decide(createIssue, input, await engine.prepare(createIssue, input));
  }

  it('a rule for a tool its server has not listed yet is kept, and judges the call once it is', async () => {
    const engine = await policy.withUserPolicy({ allow: ['github__create_issue(repo=acme/*)'], deny: ['github__create_issue(repo=acme/secrets)'] });
    expect(engine.status().problems).toEqual([]);
    expect(await decide({ repo: 'acme/docs', title: 'typo' })).toMatchObject({ decision: 'allow' });
    expect(await decide({ repo: 'acme/secrets', title: 'x' })).toMatchObject({ decision: 'deny' });
    // Another owner, or no repo at all, falls to the tier default (ELEVATED asks).
    expect(await decide({ repo: 'evil/acme', title: 'x' })).toMatchObject({ decision: 'ask' });
    expect(await decide({ title: 'x' })).toMatchObject({ decision: 'ask' });
  });

  it('every pair must match, a value with a comma is a JSON string, and a nested argument is named by its path', async () => {
    await policy.withUserPolicy({ allow: ['github__create_issue(repo=acme/docs, title="fix: a, b", options.label=bug)'] });
    expect(await decide({ repo: 'acme/docs', title: 'fix: a, b', options: { label: 'bug' } })).toMatchObject({ decision: 'allow' });
    expect(await decide({ repo: 'acme/docs', title: 'fix: a, b', options: { label: 'feature' } })).toMatchObject({ decision: 'ask' });
    expect(await decide({ repo: 'acme/docs', title: 'fix: a', options: { label: 'bug' } })).toMatchObject({ decision: 'ask' });
  });

  it('an object or list where a value is expected matches nothing: an allow cannot be met by a crafted shape', async () => {
    await policy.withUserPolicy({ allow: ['github__create_issue(repo=*)'] });
    expect(await decide({ repo: ['acme/docs'] })).toMatchObject({ decision: 'ask' });
    expect(await decide({ repo: { toString: 'acme/docs' } })).toMatchObject({ decision: 'ask' });
    // A key inherited from Object.prototype is no argument.
    await policy.withUserPolicy({ allow: ['github__create_issue(constructor.name=Object)'] });
    expect(await decide({})).toMatchObject({ decision: 'ask' });
  });

  it('a rule that is not argument=glob is refused with how to write it', async () => {
    const engine = await policy.withUserPolicy({ allow: ['github__create_issue(acme/docs)'] });
    expect(engine.status().problems[0]?.problem).toMatch(/is not argument=glob/);
    const quoted = await policy.withUserPolicy({ allow: ['github__create_issue(title="open)'] });
    expect(quoted.status().problems[0]?.problem).toMatch(/never closed|not a JSON string/);
  });

  it('the prompt suggests a rule pinning the call\'s values, glob characters escaped, and it matches that call only', async () => {
    const engine = await policy.withUserPolicy({});
    const input = { repo: 'acme/docs', title: 'why *?' };
    const [exact, every] = await engine.suggestRules(createIssue, input);
    expect(exact?.rule).toBe('github__create_issue(repo="acme/docs", title="why \\\\*\\\\?")');
    expect(every?.rule).toBe('github__create_issue');
    await policy.withUserPolicy({ allow: [exact!.rule] });
    expect(await decide(input)).toMatchObject({ decision: 'allow' });
    expect(await decide({ repo: 'acme/docs', title: 'why not' })).toMatchObject({ decision: 'ask' });
  });
});
