import type { RuleSource } from '../../shared/policy';
import type { CompiledRule } from './compiledRule';

/** Whom and how long a grant from a prompt holds for. */
export interface GrantScope {
  /** Only this agent session's calls ("Approve for this session"). */
  readonly agentSession?: string;
  /** Until then ("Allow for 15 min"); absent: until the gate stops. */
  readonly expiresAt?: Date;
}

/** Whether a rule holds for a call of this agent session now: a grant may be one session's, or over. */
export function grantHolds(source: RuleSource, agentSession: string | undefined, now: number): boolean {
  if (source.agentSession !== undefined && source.agentSession !== agentSession) return false;
  return source.expiresAt === undefined || Date.parse(source.expiresAt) > now;
}

/** A rule's identity across reloads: where it is written and what it says. */
export function ruleKey(rule: Pick<CompiledRule, 'text' | 'effect' | 'source'>): string {
  const { layer, file, line, approvalId, agentSession } = rule.source;
  return JSON.stringify([layer, file ?? '', line ?? 0, approvalId ?? '', agentSession ?? '', rule.effect, rule.text]);
}

/** How often each rule decided a call since the gate started, and when it last did. */
export class RuleUsage {
  private readonly byKey = new Map<string, { hits: number; lastUsed: number }>();

  /** Counts one decision by this rule. */
  record(rule: CompiledRule, now: number): void {
    const key = ruleKey(rule);
    const seen = this.byKey.get(key);
    this.byKey.set(key, { hits: (seen?.hits ?? 0) + 1, lastUsed: now });
  }

  /** The count and last use of a rule (zero hits when it never decided). */
  of(rule: CompiledRule): { hits: number; lastUsed?: string } {
    const seen = this.byKey.get(ruleKey(rule));
    return seen ? { hits: seen.hits, lastUsed: new Date(seen.lastUsed).toISOString() } : { hits: 0 };
  }
}
