import { GateError } from '../../shared/errors';
import type { Permission } from '../../shared/permissions';
import type { CompiledRule } from './compiledRule';
import { describeSource } from './policyDecisions';
import type { PolicyEngine } from './policyEngine';
import { grantHolds, ruleKey } from './ruleUsage';

/** Says who an agent session is (its client's name and version), when the gate knows. */
export type AgentNamer = (agentSession: string) => string | undefined;

function scopeOf(rule: CompiledRule, nameAgent: AgentNamer): string {
  const session = rule.source.agentSession;
  if (!session) return 'every agent';
  const client = nameAgent(session);
  return `agent session ${session.slice(0, 8)}${client ? ` (${client})` : ''}`;
}

/** Every rule and grant in force, tightest layer first, with where it came from and how often it decided. */
export function listPermissions(engine: PolicyEngine, nameAgent: AgentNamer = () => undefined): Permission[] {
  const now = Date.now();
  return engine
    .rulesInForce()
    .filter((rule) => grantHolds(rule.source, rule.source.agentSession, now))
    .map((rule) => {
      const { layer, file, line, approvalId, agentSession, expiresAt } = rule.source;
      return {
        id: ruleKey(rule),
        rule: rule.text,
        effect: rule.effect,
        layer,
        source: layer === 'session' ? `approval ${approvalId ?? '?'}` : describeSource(rule.source),
        ...(file ? { file } : {}),
        ...(line ? { line } : {}),
        ...(approvalId ? { approvalId } : {}),
        scope: scopeOf(rule, nameAgent),
        ...(agentSession ? { agentSession } : {}),
        ...(expiresAt ? { expiresAt } : {}),
        ...engine.usage.of(rule),
        revocable: layer === 'session' || layer === 'user' || layer === 'project',
      };
    });
}

/** Revokes one rule or grant by the id listPermissions gave it; false when it is no longer in force. */
export async function revokePermission(engine: PolicyEngine, id: string): Promise<boolean> {
  const rule = engine.rulesInForce().find((candidate) => ruleKey(candidate) === id);
  if (!rule) return false;
  if (rule.source.layer === 'session') return engine.revokeGrant(rule);
  if (rule.source.layer === 'user' || rule.source.layer === 'project') return engine.removeFileRule(rule);
  throw new GateError('EPERMISSION', rule.source.layer === 'managed' ? 'a managed rule is set by the machine administrator and cannot be revoked here' : 'a --grant rule lasts until the gate is started without it');
}

/**
 * Keeps a grant for good: its rule is appended to the user or project policy file (checked and
 * trusted as "Always allow" is) and the grant, now covered by the file, is revoked. Only an allow
 * made by an approval (session or timed) can be kept; the returned path is the file written.
 */
export async function keepPermission(engine: PolicyEngine, id: string, file: 'user' | 'project'): Promise<string> {
  const rule = engine.rulesInForce().find((candidate) => ruleKey(candidate) === id && grantHolds(candidate.source, candidate.source.agentSession, Date.now()));
  if (!rule) throw new GateError('ENOTFOUND', 'that grant is no longer in force (revoked or expired): approve a call again to make a new one');
  if (rule.source.layer !== 'session' || rule.effect !== 'allow') {
    throw new GateError('EVALIDATION', `only a grant made by an approval can be kept for good; ${rule.text} is a ${rule.effect} rule of the ${rule.source.layer} layer already`);
  }
  await engine.saveRules(file, [rule.text]);
  engine.revokeGrant(rule);
  return engine.files[file];
}
