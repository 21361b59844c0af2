import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SECURITY_TIERS, type SecurityTier, type ToolManifest } from '../../shared/manifest';
import { defineTool } from '../../main/registry/defineTool';
import { decideSafely, tierPolicy, type Policy } from '../../main/policy/tierPolicy';

function manifest(tier: SecurityTier): ToolManifest {
  return defineTool({
    name: 'probe',
    version: '1.0.0',
    description: 'probe',
    tier,
    input: z.object({}),
    output: z.object({}),
    execute: () => ({}),
  }).manifest;
}

describe('tierPolicy', () => {
  const expected: Record<SecurityTier, 'allow' | 'ask' | 'deny'> = {
    SAFE: 'allow',
    STANDARD: 'allow',
    ELEVATED: 'ask',
    RESTRICTED: 'ask',
    DANGEROUS: 'deny',
  };

  it.each(SECURITY_TIERS)('decides %s by its tier and names the rule', (tier) => {
    const decided = tierPolicy.decide(manifest(tier), {});
    expect(decided.decision).toBe(expected[tier]);
    expect(decided.rule).toBe(`tier:${tier}→${expected[tier]}`);
    expect(decided.reason).toContain(`probe is ${tier}`);
  });
});

describe('decideSafely', () => {
  it('passes a valid decision through', () => {
    expect(decideSafely(tierPolicy, manifest('SAFE'), {})).toEqual(tierPolicy.decide(manifest('SAFE'), {}));
  });

  it('fails closed when the policy throws, saying why', () => {
    const broken: Policy = {
      decide() {
        throw new Error('rules file unreadable');
      },
    };
    const decided = decideSafely(broken, manifest('SAFE'), {});
    expect(decided).toMatchObject({ decision: 'deny', rule: 'policy:error' });
    expect(decided.reason).toContain('rules file unreadable');
  });

  it('fails closed when the policy answers nonsense or nothing', () => {
    const nonsense: Policy = { decide: () => ({ decision: 'maybe' as 'allow', rule: 'x', reason: 'y' }) };
    const nothing: Policy = { decide: () => undefined as unknown as ReturnType<Policy['decide']> };
    expect(decideSafely(nonsense, manifest('SAFE'), {})).toMatchObject({ decision: 'deny', rule: 'policy:invalid' });
    expect(decideSafely(nothing, manifest('SAFE'), {})).toMatchObject({ decision: 'deny', rule: 'policy:invalid' });
  });
});
