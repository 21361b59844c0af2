import { newCallId } from '../audit/callId';
import { hostname } from 'node:os';
import type { ApprovalOutcome, ApprovalRequest } from '../../shared/approval';
import type { BridgeParsedRequest } from '../../shared/contract';
import { GateError } from '../../shared/errors';
import type { TeamDecision } from '../../shared/teamDecision';
import type { ApprovalQueue } from '../approvals/approvalQueue';
import type { AuditStore } from '../audit/auditStore';
import { claimDecision } from './teamBoard';
import type { TeamCredentials } from './teamCredentials';
import type { TeamLink } from './teamLink';
import { checkDecision, readDecision, signDecision, teamPromptMessage } from './teamMessages';

/** What the owning gate's side of team mode works with. */
export interface TeamGateDeps {
  credentials: TeamCredentials;
  link: TeamLink;
  approvals: ApprovalQueue;
  audit: Pick<AuditStore, 'append'>;
  workspace: string;
  log: (message: string) => void;
}

/**
 * A gate in a team: publishes each prompt it raises and how it ended, follows the decisions written
 * at its prompts' keys (only those signed by a team approver, or by itself for its own console's
 * answers, and binding the call waiting), and puts its own console's answers through the same
 * compare-and-set, so a local and a team answer can never both win.
 */
export class TeamGate {
  /** Prompts whose card was sent to the team: it may have answered them, so only the team's key decides them. */
  private readonly seenByTeam = new Set<string>();
  /** Prompts this gate's console is answering: their own key's value is applied by that answer, not by the watch. */
  private readonly claiming = new Set<string>();
  /** The signed decision each answered prompt is recorded with. */
  private readonly signed = new Map<string, TeamDecision>();
  private readonly member: string;

  constructor(private readonly deps: TeamGateDeps) {
    this.member = deps.credentials.member;
  }

  /** The signed decision a prompt was settled by (the approval queue records it). */
  signedDecision(approvalId: string): TeamDecision | undefined {
    return this.signed.get(approvalId);
  }

  /** Publishes a prompt the gate raised (the console's card, already redacted). */
  promptRaised(request: ApprovalRequest): void {
    const { link } = this.deps;
    const message = teamPromptMessage(request, { gate: this.member, machine: hostname(), workspace: this.deps.workspace });
    link.publish(link.names.prompts(this.member), JSON.stringify(message), `${this.member}.${request.approvalId}.prompt`, () => this.seenByTeam.add(request.approvalId));
  }

  /** Tells the team how a prompt ended. */
  promptEnded(outcome: ApprovalOutcome): void {
    const { link } = this.deps;
    this.seenByTeam.delete(outcome.approvalId);
    this.signed.delete(outcome.approvalId);
    const ended = { gate: this.member, approvalId: outcome.approvalId, outcome: outcome.outcome, ...(outcome.reason ? { reason: outcome.reason.slice(0, 2000) } : {}), endedAt: outcome.decidedAt };
    link.publish(link.names.ended(this.member), JSON.stringify(ended), `${this.member}.${outcome.approvalId}.ended`);
  }

  /** Watches this gate's own decision keys (again, after each reconnection: what was decided meanwhile arrives first). */
  async watchDecisions(): Promise<{ stop(): unknown }> {
    const kv = await this.deps.link.bucket(this.deps.link.names.decisionsBucket);
    const watch = await kv.watch({ key: `${this.member}.>` });
    void (async () => {
      for await (const entry of watch) {
        if (entry.operation === 'PUT') await this.decisionArrived(entry.key, entry.value);
      }
    })().catch((error: unknown) => this.deps.log(`team decisions stopped: ${(error as Error).message}`));
    return watch;
  }

  /**
   * Runs a local console answer through the team: signs it and writes it at the prompt's key,
   * compare-and-set. Throws when the team answered first (saying who and how), or when the server
   * is away and the team may have seen the prompt. Then `apply` settles it locally; if that fails,
   * the prompt is denied (the key says it was answered; nothing runs unsure).
   */
  async answerLocally<T>(request: BridgeParsedRequest<'decideApproval'>, apply: () => Promise<T>): Promise<T> {
    const { approvalId } = request;
    const waiting = this.deps.approvals.waiting(approvalId).request;
    const decision = this.signOwn(waiting, request.decision, request.reason, request.tellAgent);
    const key = this.deps.link.names.decisionKey(this.member, approvalId);
    this.claiming.add(approvalId);
    try {
      if (this.deps.link.isOnline) {
        const claimed = await claimDecision(this.deps.link, key, decision);
        if (!claimed.won) {
          // The watch skipped the winner while this answer was in flight: it is applied here.
          this.claiming.delete(approvalId);
          await this.applyDecision(waiting, key, claimed.decision);
          throw answeredBy(claimed.decision);
        }
      } else if (this.seenByTeam.has(approvalId)) {
        throw new GateError(
          'EUNAVAILABLE',
          'the team server cannot be reached, and the team has seen this prompt, so someone there may have answered it: it is decided once the server is back (the gate reconnects by itself)',
        );
      } else {
        // The team never saw it: the answer is queued ahead of the card, so the key is taken before anyone can answer.
        this.deps.link.queueDecision(key, JSON.stringify(decision));
      }
      this.signed.set(approvalId, decision);
      try {
        return await apply();
      } catch (error) {
        this.signed.delete(approvalId);
        this.denyIfWaiting(approvalId, `the answer was taken but could not be applied (${(error as Error).message}); denied to be safe`);
        throw error;
      }
    } finally {
      this.claiming.delete(approvalId);
    }
  }

  /** Denies every prompt of an agent session that the team has not answered first; returns how many. */
  async denyAllFrom(agentSession: string, reason: string | undefined): Promise<number> {
    const mine = this.deps.approvals.list().filter((request) => request.agentSession === agentSession);
    let denied = 0;
    for (const request of mine) {
      try {
        await this.answerLocally({ approvalId: request.approvalId, decision: 'deny', ...(reason ? { reason } : {}) }, async () =>
          this.deps.approvals.decide(request.approvalId, 'deny', reason?.trim() || 'the person denied every prompt from this agent'),
        );
        denied++;
      } catch {
        // answered by the team first, or no longer waiting
      }
    }
    return denied;
  }

  private signOwn(request: ApprovalRequest, decision: 'approve' | 'deny', reason: string | undefined, tellAgent: string | undefined): TeamDecision {
    const { credentials } = this.deps;
    return signDecision(
      {
        gate: this.member,
        approvalId: request.approvalId,
        bindingHash: request.bindingHash,
        decision,
        ...(reason ? { reason: reason.slice(0, 2000) } : {}),
        ...(tellAgent ? { tellAgent: tellAgent.slice(0, 4000) } : {}),
        by: this.member,
        approver: credentials.approver?.name ?? `console of ${this.member}`,
        decidedAt: new Date().toISOString(),
      },
      credentials.key,
      credentials.publicKey,
    );
  }

  private async decisionArrived(key: string, value: Uint8Array): Promise<void> {
    const approvalId = key.slice(this.member.length + 1);
    if (this.claiming.has(approvalId)) return;
    let request: ApprovalRequest;
    try {
      request = this.deps.approvals.waiting(approvalId).request;
    } catch {
      return; // ended already: its decision was applied, or came too late
    }
    const read = readDecision(value);
    if (!read.ok) return this.refuse(request, key, read.problem);
    await this.applyDecision(request, key, read.value);
  }

  /** Follows a decision on a waiting prompt when its signature and binding hold; refuses it otherwise. */
  private async applyDecision(request: ApprovalRequest, key: string, decision: TeamDecision): Promise<void> {
    const { approvalId } = request;
    const check = checkDecision(decision, {
      gate: this.member,
      approvalId,
      bindingHash: request.bindingHash,
      ownPublicKey: this.deps.credentials.publicKey,
      approvers: this.deps.credentials.approvers,
    });
    if (!check.ok) return this.refuse(request, key, check.problem, decision);
    this.signed.set(approvalId, decision);
    const how = decision.decision === 'approve' ? 'approved' : 'denied';
    const reason = decision.reason ? `${decision.reason} (${how} by ${check.signer} on ${decision.by})` : `${how} by ${check.signer} on ${decision.by}`;
    try {
      this.deps.approvals.decide(approvalId, decision.decision, reason, decision.tellAgent !== undefined ? { tellAgent: decision.tellAgent } : {});
    } catch {
      this.signed.delete(approvalId);
    }
  }

  /** A decision that does not count: recorded whole in the audit, logged, and taken off the key so the prompt stays answerable. */
  private async refuse(request: ApprovalRequest, key: string, problem: string, decision?: TeamDecision): Promise<void> {
    const message = `refused a team decision on ${request.tool} (call ${request.callId}): ${problem}`;
    this.deps.log(message);
    try {
      this.deps.audit.append({
        callId: newCallId(),
        kind: 'rejected',
        payload: { step: 'team-decision', surface: 'team', error: { code: 'EPERMISSION', message }, promptCallId: request.callId, approvalId: request.approvalId, ...(decision ? { decision } : {}) },
      });
    } catch {
      // a closed log at shutdown
    }
    try {
      const kv = await this.deps.link.bucket(this.deps.link.names.decisionsBucket);
      await kv.delete(key);
    } catch (error) {
      this.deps.log(`could not clear the refused decision at ${key}: ${(error as Error).message}`);
    }
  }

  private denyIfWaiting(approvalId: string, reason: string): void {
    try {
      this.deps.approvals.decide(approvalId, 'deny', reason);
    } catch {
      // no longer waiting
    }
  }
}

/** The error a person gets when the team answered a prompt first: who and how. */
export function answeredBy(decision: TeamDecision): GateError {
  const how = decision.decision === 'approve' ? 'approved' : 'denied';
  return new GateError('ENOTFOUND', `${decision.approver} (${decision.by}) already ${how} this prompt${decision.reason ? `: ${decision.reason}` : ''}`, {
    answeredBy: decision.approver,
    member: decision.by,
    decision: decision.decision,
  });
}
