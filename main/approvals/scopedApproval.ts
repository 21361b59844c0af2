import type { ApprovalOutcome, CallEdit, EditCheck } from '../../shared/approval';
import type { BridgeParsedRequest } from '../../shared/contract';
import { GateError } from '../../shared/errors';
import { isDeclaredAgentSession } from '../../shared/agentName';
import { GRANT_DURATIONS, type ApprovalScope, type RuleCheck } from '../../shared/permissions';
import type { AuditRecord } from '../../shared/audit';
import { checkRules, typedRules } from '../policy/ruleChecks';
import type { PolicyEngine } from '../policy/policyEngine';
import type { ApprovalQueue, CallReviser } from './approvalQueue';

/** What answering a prompt with a scope needs. */
export interface ScopedApprovalDeps {
  readonly approvals: ApprovalQueue;
  /** Absent when the gate was given a fixed policy: then only one-time answers exist. */
  readonly engine?: PolicyEngine;
  /** Recent audit records, newest first (for the calls a rule would also have matched). */
  readonly recent: (limit: number) => readonly AuditRecord[];
}

function engineOf(deps: ScopedApprovalDeps): PolicyEngine {
  if (!deps.engine) throw new GateError('EVALIDATION', 'this gate runs a fixed policy, so approvals hold for one call only: choose Approve');
  return deps.engine;
}

/** Checks rules typed into a prompt's editor, saving nothing. */
export async function checkPromptRules(deps: ScopedApprovalDeps, approvalId: string, rules: readonly string[], scope: ApprovalScope): Promise<RuleCheck> {
  const engine = engineOf(deps);
  const { request, subject } = deps.approvals.waiting(approvalId);
  if (!subject) throw new GateError('EVALIDATION', 'this prompt cannot make a rule (the call is not known whole): choose Approve');
  const { problems, warnings, matches } = await checkRules(engine, { callId: request.callId, ...subject }, rules, scope, deps.recent);
  return { problems, warnings, matches };
}

function reviserOf(deps: ScopedApprovalDeps, approvalId: string): CallReviser {
  const reviser = deps.approvals.waiting(approvalId).subject?.reviser;
  if (!reviser) throw new GateError('EVALIDATION', 'this call cannot be edited (the gate did not keep it whole): approve or deny it as it is');
  return reviser;
}

/** Checks a person's edit of a prompt's call as it is typed; nothing is decided. */
export function checkPromptEdit(deps: ScopedApprovalDeps, approvalId: string, edit: CallEdit): Promise<EditCheck> {
  return reviserOf(deps, approvalId).check(edit);
}

/**
 * Answers a prompt. An approval with an edit is checked and previewed again by the call's reviser
 * and holds for this call only; the edited call runs instead of the agent's. Deny and one-time approve go straight to the queue; a scoped approve first
 * checks the edited rules (nothing is granted or saved if any fails), grants or saves them, then
 * approves, so the next matching call runs unasked. Session grants hold for the prompt's agent
 * session only; timed ones for every agent until they expire; "always" writes the user or project file.
 */
export async function decideApproval(deps: ScopedApprovalDeps, decision: BridgeParsedRequest<'decideApproval'>): Promise<ApprovalOutcome> {
  const { approvalId, reason } = decision;
  if (decision.bindingHash !== undefined && deps.approvals.waiting(approvalId).request.bindingHash !== decision.bindingHash) {
    throw new GateError('EVALIDATION', 'this prompt no longer binds the call you were shown: look at it again before answering');
  }
  if (decision.edit) {
    if (decision.decision === 'deny') throw new GateError('EVALIDATION', 'an edit goes with Approve; to deny, send no edit');
    if (decision.scope && decision.scope.kind !== 'once') throw new GateError('EVALIDATION', 'an edited call is approved for this call only: choose Approve');
    const revised = await reviserOf(deps, approvalId).revise(decision.edit);
    return deps.approvals.decide(approvalId, 'approve', reason, {}, revised);
  }
  if (decision.decision === 'deny') {
    return deps.approvals.decide(approvalId, 'deny', reason, decision.tellAgent !== undefined ? { tellAgent: decision.tellAgent } : {});
  }
  const scope = decision.scope ?? { kind: 'once' };
  if (scope.kind === 'once') return deps.approvals.decide(approvalId, 'approve', reason);
  const engine = engineOf(deps);
  const { request, subject } = deps.approvals.waiting(approvalId);
  if (!subject) throw new GateError('EVALIDATION', 'this prompt cannot make a rule (the call is not known whole): choose Approve');
  if (scope.kind === 'session' && !request.agentSession) {
    throw new GateError('EVALIDATION', 'this call came with no agent session, so there is no session to allow it for: choose Allow for… instead');
  }
  if (scope.kind === 'session' && isDeclaredAgentSession(request.agentSession)) {
    // A sessionless (2026-07-28) agent is known only by the name it declares, which any agent holding the token can declare too.
    throw new GateError(
      'EVALIDATION',
      'this call came from a sessionless agent (MCP 2026-07-28), known only by the name it declares, which any agent could claim: ' +
        'there is no session to allow it for; choose Allow for… (a set time) or Always instead',
    );
  }
  const checked = await checkRules(engine, { callId: request.callId, ...subject }, decision.rules ?? [], scope, deps.recent);
  if (checked.problems.length > 0) throw new GateError('EVALIDATION', `nothing was saved: ${checked.problems.join('; ')}`);
  const rules = typedRules(decision.rules ?? []);
  if (scope.kind === 'always') {
    await engine.saveRules(scope.file, rules);
  } else {
    const lasts = scope.kind === 'timed' ? GRANT_DURATIONS[scope.duration] : undefined;
    const grant = {
      ...(scope.kind === 'session' ? { agentSession: request.agentSession } : {}),
      ...(lasts !== undefined ? { expiresAt: new Date(Date.now() + lasts) } : {}),
    };
    for (const rule of rules) await engine.grantSession(rule, approvalId, 'allow', grant);
  }
  try {
    return deps.approvals.decide(approvalId, 'approve', reason, { scope, rules });
  } catch (error) {
    // The prompt went (expired, withdrawn) while the rules were saved: a grant made for it goes too.
    if (scope.kind !== 'always') engine.revokeSession(approvalId);
    throw error;
  }
}
