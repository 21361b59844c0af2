/**
 * The rule editor of a prompt checks the rules a person typed against the call being approved
 * before saving them: when they do not allow it, the problem says why no allow could (an unreadable
 * line, a program that runs code, a file known only when the line runs). Allow rules typed there are
 * never taken for the deny or ask rules that make a file known only at run time doubtful.
 */
import { describe, expect, it } from 'vitest';
import { checkRules } from '../../main/policy/ruleChecks';
import { builtinLookup, useUserPolicy } from './policyFixture';

const policy = useUserPolicy();

/** The problems the editor shows for these rules, saved for the session, on a prompt for this line. */
async function problemsFor(command: string, rules: string[]): Promise<string[]> {
  const engine = await policy.withUserPolicy({});
  const subject = { callId: 'call-1', manifest: builtinLookup('shell_exec')!, input: { command } };
  return (await checkRules(engine, subject, rules, { kind: 'session' }, () => [])).problems;
}

describe('the rule editor says why typed rules cannot allow a call', () => {
  it('a line the reader refuses: the refusal itself', async () => {
    const [problem, ...more] = await problemsFor('echo $((x))', ['shell_exec(echo *)']);
    expect(more).toEqual([]);
    expect(problem).toContain('these rules do not allow the call you are approving (the command is unreadable: $((x)) evaluates "x" as arithmetic');
  });

  it('a program that runs the code it is handed', async () => {
    expect(await problemsFor('bash -c ls', ['shell_exec(bash *)'])).toEqual([
      'these rules do not allow the call you are approving (bash runs code handed to it as text or input): keep a rule for each of its commands, files and hosts',
    ]);
  });

  it('a redirection to a file known only when the line runs', async () => {
    expect(await problemsFor('echo hi > "$OUT"', ['shell_exec(echo *)', 'write_file(**)'])).toEqual([
      'these rules do not allow the call you are approving (the redirection > "$OUT" names a file only known when the line runs): keep a rule for each of its commands, files and hosts',
    ]);
  });
});

describe('typed allow rules are only allows', () => {
  it('an allow on reading files does not make a file known only at run time doubtful: the rules allow the call', async () => {
    expect(await problemsFor('cat $F', ['shell_exec(cat *)', 'read_file(**)'])).toEqual([]);
    expect(await problemsFor('cat $F', ['shell_exec(cat *)'])).toEqual([]);
  });
});
