import { tierLevel, type SecurityTier, type TierEscalation, type ToolManifest } from '../../shared/manifest';
import type { PolicyMode, PolicyProvenance } from '../../shared/policy';
import type { RuleSuggestion } from '../../shared/permissions';
import type { CallFacts } from './callParts';

/** What policy decided for a call, and which rule decided it. */
export interface PolicyDecision {
  /** Run it, ask a person, or refuse. */
  decision: 'allow' | 'ask' | 'deny';
  /** The rule that decided, e.g. `tier:ELEVATED→ask`. */
  rule: string;
  /** Why, in words the agent and the person can read. */
  reason: string;
  /** The written rule that decided, with its layer, file and line, and the part it matched (absent: a tier default). */
  provenance?: PolicyProvenance;
  /** The security mode the call was judged in. */
  mode?: PolicyMode;
}

/** Decides a call from what is known about it. */
export interface Policy {
  decide(manifest: ToolManifest, input: unknown, facts?: CallFacts): PolicyDecision;
  /** Learns what the decision needs that takes time (a shell line's parse), before decide. */
  prepare?(manifest: ToolManifest, input: unknown): Promise<CallFacts>;
  /** Rules that would allow this call, narrowest first, for a prompt's "Approve for this session" and "Always allow". */
  suggestRules?(manifest: ToolManifest, input: unknown): Promise<RuleSuggestion[]>;
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

/** The tier one call is judged at, and the escalations that put it there (none: the tool's own tier). */
export function callTier(manifest: ToolManifest, input: unknown): { tier: SecurityTier; escalations: TierEscalation[] } {
  const args = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const matching = (manifest.escalations ?? []).filter(
    (escalation) => Object.hasOwn(args, escalation.argument) && args[escalation.argument] === escalation.equals,
  );
  const highest = Math.max(tierLevel(manifest.tier), ...matching.map((escalation) => tierLevel(escalation.tier)));
  if (highest === tierLevel(manifest.tier)) return { tier: manifest.tier, escalations: [] };
  const escalations = matching.filter((escalation) => tierLevel(escalation.tier) === highest);
  return { tier: escalations[0]!.tier, escalations };
}

/**
 * The default policy: SAFE and STANDARD run, ELEVATED and RESTRICTED ask a person, DANGEROUS is
 * denied. A call whose arguments match a declared escalation is judged at the highest such tier,
 * and the rule names the arguments, e.g. `tier:RESTRICTED(recursive)→ask`.
 */
export const tierPolicy: Policy = {
  decide(manifest, input) {
    const { tier, escalations } = callTier(manifest, input);
    const decision = TIER_DECISIONS[tier];
    if (escalations.length === 0) {
      return { decision, rule: `tier:${tier}→${decision}`, reason: `${manifest.name} is ${tier} and ${REASONS[decision]}` };
    }
    const because = escalations.map((escalation) => `${escalation.argument}=${JSON.stringify(escalation.equals)}: ${escalation.reason}`);
    return {
      decision,
      rule: `tier:${tier}(${escalations.map((escalation) => escalation.argument).join(',')})→${decision}`,
      reason: `${manifest.name} is ${manifest.tier}, raised to ${tier} for this call (${because.join('; ')}), and ${REASONS[decision]}`,
    };
  },
};

/** Runs a policy and fails closed: a policy that throws or answers nonsense denies. */
export function decideSafely(policy: Policy, manifest: ToolManifest, input: unknown, facts?: CallFacts): PolicyDecision {
  try {
    const decided = policy.decide(manifest, input, facts);
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

/**
 * Prepares and decides one call, failing closed: a policy whose preparation throws denies, as
 * one whose decision throws does.
 */
export async function decideCall(policy: Policy, manifest: ToolManifest, input: unknown, caller: Pick<CallFacts, 'agentSession' | 'pathsAsWritten' | 'again'> = {}): Promise<PolicyDecision> {
  let facts: CallFacts | undefined;
  try {
    const prepared = await policy.prepare?.(manifest, input);
    facts = caller.agentSession || caller.pathsAsWritten || caller.again ? { ...prepared, ...caller } : prepared;
  } catch (error) {
    return {
      decision: 'deny',
      rule: 'policy:error',
      reason: `the policy could not look at the call (${(error as Error).message}), so the call is denied`,
    };
  }
  return decideSafely(policy, manifest, input, facts);
}
