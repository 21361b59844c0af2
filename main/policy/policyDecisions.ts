import { tierLevel, type ToolManifest } from '../../shared/manifest';
import type { PolicyMode, RuleSource } from '../../shared/policy';
import type { RuleHit } from './judgeCall';
import { callTier, type PolicyDecision } from './tierPolicy';

/** How strict each decision is: a call judged again is held to no laxer a decision than it had. */
export const DECISION_STRICTNESS = { allow: 0, ask: 1, deny: 2 } as const;

/** Where a rule was written, in words: `user policy line 4 (/home/me/.toolgate/policy.json)`. */
export function describeSource(source: RuleSource): string {
  if (source.layer === 'session') return `a session grant${source.approvalId ? ` (approval ${source.approvalId})` : ''}`;
  if (source.layer === 'flag') return "the gate's --grant flag";
  return `${source.layer} policy${source.line ? ` line ${source.line}` : ''} (${source.file})`;
}

const VERBS = { allow: 'allowed', ask: 'asks because of', deny: 'denied by' } as const;

/** The decision a matching rule makes, with its provenance, in words the agent and the person read. */
export function decisionFromRule(effect: 'allow' | 'ask' | 'deny', hit: RuleHit, mode: PolicyMode): PolicyDecision {
  const { rule, matched, resolvesTo, heldBecause } = hit;
  const part = matched === undefined ? '' : ` (matched ${JSON.stringify(matched)}${resolvesTo === undefined ? '' : `, which resolves to ${resolvesTo}`})`;
  const where = describeSource(rule.source);
  const byRule = `${VERBS[effect]} \`${rule.text}\`, ${where}${rule.reason ? `: ${rule.reason}` : ''}`;
  // A line held whole says first why: the rule did not match anything it names.
  const reason = heldBecause === undefined ? `${byRule}${part}` : `the line cannot be judged command by command (${heldBecause}), so every ${effect} rule that could apply holds it; ${byRule}`;
  return {
    decision: effect,
    // The prompt shows this: the rule, where it was written and its reason.
    rule: `${rule.text} (${where})${rule.reason ? `: ${rule.reason}` : ''}`,
    reason,
    mode,
    provenance: {
      rule: rule.text,
      effect,
      source: rule.source,
      ...(rule.reason ? { reason: rule.reason } : {}),
      ...(matched !== undefined ? { matched } : {}),
    },
  };
}

/** Who decided at the policy step, for the Live view: a written rule, a tier default, the mode, or the policy itself. */
export function deciderOf(decision: Pick<PolicyDecision, 'rule' | 'provenance'>): { by: 'rule' | 'default' | 'mode' | 'policy'; detail: string } {
  if (decision.provenance) return { by: 'rule', detail: decision.rule };
  if (decision.rule.startsWith('tier:')) return { by: 'default', detail: decision.rule };
  if (decision.rule.startsWith('mode:')) return { by: 'mode', detail: decision.rule };
  return { by: 'policy', detail: decision.rule };
}

/** Who an approval's outcome says decided. */
const OUTCOME_DECIDERS = { approved: 'person', denied: 'person', expired: 'timeout', withdrawn: 'withdrawn' } as const;

/** Who decided a prompt, as the Live view shows it: a person (who may have edited the call), nobody in time, or the agent withdrawing the call. */
export function deciderOfOutcome(
  outcome: keyof typeof OUTCOME_DECIDERS,
  reason: string | undefined,
  edited = false,
): { by: (typeof OUTCOME_DECIDERS)[keyof typeof OUTCOME_DECIDERS]; detail: string } {
  return { by: OUTCOME_DECIDERS[outcome], detail: `${outcome}${edited ? ' with edits' : ''}${reason ? `: ${reason}` : ''}` };
}

/** What the call is like, as the mode looks at it when no rule decided. */
export interface DefaultFacts {
  readonly mode: PolicyMode;
  /** Why no allow could vouch for the call (an unreadable shell line); then it never runs unasked. */
  readonly notAllowable?: string;
  readonly touchesProtected: boolean;
  readonly touchesPaths: boolean;
}

/**
 * The tier default as the mode adjusts it: strict asks for everything above SAFE; permissive lets
 * an ELEVATED call that works on workspace paths run (never one reaching the network, a protected
 * path, secrets — asked for later by the pipeline — or anything RESTRICTED or DANGEROUS).
 */
export function modeDefault(manifest: ToolManifest, input: unknown, tier: PolicyDecision, facts: DefaultFacts): PolicyDecision {
  const level = tierLevel(callTier(manifest, input).tier);
  if (tier.decision === 'allow' && facts.notAllowable) {
    return { ...tier, decision: 'ask', rule: 'policy:unreadable', reason: `${manifest.name} cannot run unasked: ${facts.notAllowable}`, mode: facts.mode };
  }
  if (facts.mode === 'strict' && tier.decision === 'allow' && level > 0) {
    return { ...tier, decision: 'ask', rule: 'mode:strict', reason: `strict mode asks for everything above SAFE (${tier.reason})`, mode: facts.mode };
  }
  const offline = !manifest.sideEffects.some((effect) => effect === 'NetRead' || effect === 'NetWrite');
  if (facts.mode === 'permissive' && tier.decision === 'ask' && level === 2 && offline && facts.touchesPaths && !facts.touchesProtected && !facts.notAllowable) {
    return { ...tier, decision: 'allow', rule: 'mode:permissive', reason: `permissive mode lets ELEVATED work inside the workspace run (${tier.reason})`, mode: facts.mode };
  }
  return { ...tier, mode: facts.mode };
}
