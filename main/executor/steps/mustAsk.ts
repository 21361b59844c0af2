import type { PolicyDecision } from '../../policy/tierPolicy';
import type { RegisteredTool } from '../../registry/registry';

/** A decision to allow a tool that must ask (never reviewed) becomes a question; deny and ask stay. */
export function mustAsk(entry: RegisteredTool, decision: PolicyDecision): PolicyDecision {
  const why = decision.decision === 'allow' ? entry.external?.mustAsk() : undefined;
  return why ? { ...decision, decision: 'ask', reason: why, rule: 'unreviewed upstream tool' } : decision;
}
