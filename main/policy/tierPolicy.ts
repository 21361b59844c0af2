import type { SecurityTier, ToolManifest } from '../../shared/manifest';

/** What policy decided for a call, and which rule decided it. */
export interface PolicyDecision {
  /** Run it, ask a person, or refuse. */
  decision: 'allow' | 'ask' | 'deny';
  /** The rule that decided, e.g. `tier:ELEVATED→ask`. */
  rule: string;
  /** Why, in words the agent and the person can read. */
  reason: string;
}

/** Decides a call from what is known about it. */
export interface Policy {
  decide(manifest: ToolManifest, input: unknown): PolicyDecision;
}

const TIER_DECISIONS: Record<SecurityTier, PolicyDecision['decision']> = {
  SAFE: 'allow',
  STANDARD: 'allow',
  ELEVATED: 'ask',
  RESTRICTED: 'ask',
  DANGEROUS: 'deny',
};

const REASONS: Record<PolicyDecision['decision'], string> = {
  allow: 'runs without asking',
  ask: 'needs a person to approve it',
  deny: 'is blocked by policy',
};

/** The default policy: SAFE and STANDARD run, ELEVATED and RESTRICTED ask a person, DANGEROUS is denied. */
export const tierPolicy: Policy = {
  decide(manifest) {
    const decision = TIER_DECISIONS[manifest.tier];
    return {
      decision,
      rule: `tier:${manifest.tier}→${decision}`,
      reason: `${manifest.name} is ${manifest.tier} and ${REASONS[decision]}`,
    };
  },
};

/** Runs a policy and fails closed: a policy that throws or answers nonsense denies. */
export function decideSafely(policy: Policy, manifest: ToolManifest, input: unknown): PolicyDecision {
  try {
    const decided = policy.decide(manifest, input);
    if (decided && ['allow', 'ask', 'deny'].includes(decided.decision)) return decided;
    return { decision: 'deny', rule: 'policy:invalid', reason: 'the policy gave no valid decision, so the call is denied' };
  } catch (error) {
    return {
      decision: 'deny',
      rule: 'policy:error',
      reason: `the policy could not be evaluated (${(error as Error).message}), so the call is denied`,
    };
  }
}
