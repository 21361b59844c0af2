/**
 * What kind of specifier a tool's rules take (a command, a path, a host, an upstream tool's
 * arguments, or none), as a policy file shows it: the rules that load, the ones refused with the
 * fix, and the examples checked against them when the file loads.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_BOUNDS, type ToolManifest } from '../../shared/manifest';
import { PolicyEngine } from '../../main/policy/policyEngine';
import { builtinLookup, decideShell, useUserPolicy, writePolicy } from './policyFixture';

const policy = useUserPolicy();

/** A manifest tool that calls a fixed endpoint and takes no URL or path argument. */
const STATUS_CHECK: ToolManifest = {
  name: 'status_check',
  version: '1.0.0',
  description: 'reads the status of the reports service',
  tier: 'ELEVATED',
  sideEffects: ['NetRead'],
  determinism: 'NonDeterministic',
  capabilities: [],
  bounds: DEFAULT_BOUNDS,
  pathArguments: [],
  endpoints: ['https://status.example.com/now'],
  supportsDryRun: false,
  inputSchema: { type: 'object' },
  outputSchema: {},
};

async function engineWith(rules: unknown): Promise<PolicyEngine> {
  const folders = policy.folders();
  writePolicy(folders.user, rules);
  return PolicyEngine.create({
    tools: (name) => (name === STATUS_CHECK.name ? STATUS_CHECK : builtinLookup(name)),
    workspace: folders.workspace,
    home: folders.home,
    userHome: folders.userHome,
    managedFile: folders.managed,
  });
}

describe('the specifier a tool takes', () => {
  it('a tool with a fixed endpoint and no URL argument takes host rules, which judge its endpoint', async () => {
    const engine = await engineWith({ deny: ['status_check(domain:status.example.com)'], ask: ['status_check(domain:other.example.com)'] });
    try {
      expect(engine.status().problems).toEqual([]);
      expect(engine.decide(STATUS_CHECK, {})).toMatchObject({ decision: 'deny', provenance: { rule: 'status_check(domain:status.example.com)', matched: 'status.example.com' } });
    } finally {
      engine.close();
    }
  });

  it('a tool with no command, path or URL argument refuses a specifier, saying to write its bare name', async () => {
    const engine = await engineWith({ allow: ['calculator(1+1)'] });
    try {
      const problems = engine.status().problems;
      expect(problems).toHaveLength(1);
      expect(problems[0]!.problem).toContain('calculator takes no specifier: it has no command, path or URL argument');
      expect(problems[0]!.fix).toBe('write the bare name calculator to match every call of it');
    } finally {
      engine.close();
    }
  });
});

describe('examples are checked against the rule alone', () => {
  it("an upstream tool not listed yet: its rule matches by arguments, and an example of them agrees", async () => {
    await policy.withUserPolicy({ allow: [{ rule: 'github__create_issue(repo=acme/*)', examples: { match: [{ repo: 'acme/web' }], notMatch: [{ repo: 'evil/web' }] } }] });
    expect(policy.engine().status().problems).toEqual([]);
  });

  it('a command whose file is known only when it runs matches an allow example: the rule alone holds no deny to doubt it by', async () => {
    await policy.withUserPolicy({ allow: [{ rule: 'shell_exec(cat *)', examples: { match: ['cat $F'] } }] });
    expect(policy.engine().status().problems).toEqual([]);
    expect((await decideShell(policy.engine(), 'cat notes.txt')).decision).toBe('allow');
  });
});
