import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, ApprovalOutcome, ApprovalRequest } from '../../shared/approval';
import type { TeamDecision } from '../../shared/teamDecision';
import { GateError } from '../../shared/errors';
import type { ToolManifest } from '../../shared/manifest';
import type { CallEdit, EditCheck } from '../../shared/approval';
import type { RevisedCall } from './callReviser';
import { countOf, nounFor } from '../../shared/plural';

/** The call a prompt is about, whole (the request shows a bounded form): what scoped approvals check rules against. */
export interface ApprovalSubject {
  readonly manifest: ToolManifest;
  readonly input: unknown;
  /** Checks and prepares a person's edit of the call; absent when the call cannot be edited. */
  readonly reviser?: CallReviser;
}

/** How a prompt's call is edited: checked as typed, and prepared to run instead when approved. */
export interface CallReviser {
  check(edit: CallEdit): Promise<EditCheck>;
  revise(edit: CallEdit): Promise<RevisedCall>;
}

/** What a decision carries besides approve or deny. */
export type DecisionExtras = Pick<ApprovalOutcome, 'tellAgent' | 'scope' | 'rules' | 'edited'>;

/** How a prompt ended, as the call waiting on it learns: with the edited call to run instead, when the person edited it. */
export type DecidedApproval = ApprovalOutcome & { readonly revised?: RevisedCall };

/** What the executor supplies when it asks a person; the queue adds id and times. */
export type ApprovalAsk = Omit<ApprovalRequest, 'approvalId' | 'requestedAt' | 'expiresAt'>;

/** Prompts one agent session may have waiting at once, unless the gate is told otherwise. */
export const DEFAULT_MAX_PENDING_PER_SESSION = 50;
/** Prompts all agents together may have waiting at once, unless the gate is told otherwise. */
export const DEFAULT_MAX_PENDING = 500;

/** How many ended prompts are remembered, so a late answer to one is told how it ended. */
const ENDED_MEMORY = 1000;

/** The bucket of calls that came with no agent session (CLI, tests): they share one per-session count. */
const NO_SESSION = '';

/** Options of the approval queue. */
export interface ApprovalQueueOptions {
  /** How long a prompt waits before it is denied. */
  timeoutMs: number;
  /**
   * Prompts one agent session may have waiting (default 50): a person cannot answer more, and one
   * agent must not crowd out the others. Past it, new asks are refused at once with EQUOTA.
   */
  maxPendingPerSession?: number;
  /** Prompts all agents together may have waiting (default 500); past it, EQUOTA. */
  maxPending?: number;
  /** Told of each new prompt. */
  onRequested?: (request: ApprovalRequest) => void;
  /** Told of each outcome. */
  onResolved?: (outcome: ApprovalOutcome) => void;
  /** In team mode: the signed decision that won this prompt's key, recorded with a person's answer to it. */
  signedDecision?: (approvalId: string) => TeamDecision | undefined;
}

interface Pending {
  request: ApprovalRequest;
  subject?: ApprovalSubject;
  resolve: (outcome: DecidedApproval) => void;
  timer: NodeJS.Timeout;
}

/** Prompts waiting for a person. Ids are issued here; the console can only answer what it was shown. */
export class ApprovalQueue {
  private readonly pending = new Map<string, Pending>();
  /** How many prompts each agent session has waiting, so the cap is checked without a scan. */
  private readonly pendingBySession = new Map<string, number>();
  /** How recent prompts ended, oldest first: an answer that races in after the end is refused with why. */
  private readonly ended = new Map<string, Pick<ApprovalOutcome, 'outcome' | 'reason'>>();
  private readonly maxPendingPerSession: number;
  private readonly maxPending: number;
  private closed = false;

  constructor(private readonly options: ApprovalQueueOptions) {
    this.maxPendingPerSession = options.maxPendingPerSession ?? DEFAULT_MAX_PENDING_PER_SESSION;
    this.maxPending = options.maxPending ?? DEFAULT_MAX_PENDING;
  }

  /**
   * Why a new prompt from this agent session would be refused now (EQUOTA), or undefined when there
   * is room. Checked before the preview is made, so a refused call costs no dry run.
   */
  quotaRefusal(agentSession: string | undefined): GateError | undefined {
    const own = this.pendingBySession.get(agentSession ?? NO_SESSION) ?? 0;
    if (own >= this.maxPendingPerSession) {
      return new GateError(
        'EQUOTA',
        `this agent session already has ${countOf(own, 'prompt')} waiting for a person (at most ${this.maxPendingPerSession} per session); ` +
          'the person must answer or deny some of them first: wait for their answers before calling again',
        { pending: own, limit: this.maxPendingPerSession, scope: 'session' },
      );
    }
    if (this.pending.size >= this.maxPending) {
      return new GateError(
        'EQUOTA',
        `${countOf(this.pending.size, 'prompt')} from all agents ${nounFor(this.pending.size, 'is', 'are')} already waiting for a person (at most ${this.maxPending} in all); ` +
          'the person must answer or deny some of them first: try again later',
        { pending: this.pending.size, limit: this.maxPending, scope: 'gate' },
      );
    }
    return undefined;
  }

  /**
   * Asks a person; the promise settles with their decision, or 'expired' after the timeout.
   * Throws EQUOTA at once when the agent's session or the gate already has its most prompts waiting.
   */
  ask(ask: ApprovalAsk, subject?: ApprovalSubject): { request: ApprovalRequest; outcome: Promise<DecidedApproval> } {
    const refusal = this.closed ? undefined : this.quotaRefusal(ask.agentSession);
    if (refusal) throw refusal;
    const now = Date.now();
    const request: ApprovalRequest = {
      ...ask,
      approvalId: randomUUID(),
      requestedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.options.timeoutMs).toISOString(),
    };
    const outcome = new Promise<DecidedApproval>((resolve) => {
      if (this.closed) {
        resolve(this.outcomeOf(request, 'withdrawn', 'the gate is shutting down'));
        return;
      }
      // A timer counts whole milliseconds from the event loop's clock: one that fires before the
      // time the prompt shows waits out the rest, so no prompt ends before its `expiresAt`.
      const expire = (): void => {
        const left = now + this.options.timeoutMs - Date.now();
        if (left > 0) entry.timer = setTimeout(expire, left).unref();
        else this.settle(request.approvalId, 'expired', `nobody answered within ${Math.round(this.options.timeoutMs / 1000)} s`);
      };
      const entry: Pending = { request, resolve, timer: setTimeout(expire, this.options.timeoutMs).unref(), ...(subject ? { subject } : {}) };
      this.pending.set(request.approvalId, entry);
      const session = request.agentSession ?? NO_SESSION;
      this.pendingBySession.set(session, (this.pendingBySession.get(session) ?? 0) + 1);
    });
    if (!this.closed) this.options.onRequested?.(request);
    return { request, outcome };
  }

  /**
   * A person's answer. Refuses ids that are unknown, already answered or expired. An approval of an
   * edited call carries the revised call (prepared by the subject's reviser), which runs instead.
   */
  decide(approvalId: string, decision: ApprovalDecision, reason?: string, extras: DecisionExtras = {}, revised?: RevisedCall): ApprovalOutcome {
    this.waiting(approvalId);
    const trimmed = reason?.trim();
    // What the person tells the agent is passed on verbatim; a reason is a label, so it is trimmed.
    const told = extras.tellAgent !== undefined && extras.tellAgent.trim() !== '' ? { tellAgent: extras.tellAgent } : {};
    if (decision === 'deny') return this.settle(approvalId, 'denied', trimmed || (told.tellAgent ? 'the person told the agent what to do instead' : 'denied by the person at the console'), told)!;
    const scoped = extras.scope && extras.scope.kind !== 'once' ? { scope: extras.scope, ...(extras.rules ? { rules: extras.rules } : {}) } : {};
    if (revised && extras.scope && extras.scope.kind !== 'once') throw new GateError('EVALIDATION', 'an edited call is approved for this call only: choose Approve');
    return this.settle(approvalId, 'approved', trimmed || undefined, revised ? { ...scoped, edited: revised.summary } : scoped, revised)!;
  }

  /** A waiting prompt and its call; ENOTFOUND, saying how it ended when it did lately, when it is no longer waiting. */
  waiting(approvalId: string): { request: ApprovalRequest; subject?: ApprovalSubject } {
    const entry = this.pending.get(approvalId);
    if (!entry) throw new GateError('ENOTFOUND', `that prompt is no longer waiting: ${endedText(this.ended.get(approvalId))}`, { approvalId });
    return { request: entry.request, ...(entry.subject ? { subject: entry.subject } : {}) };
  }

  /** Takes a prompt back because its call went away (the agent cancelled it). Unknown ids are ignored. */
  withdraw(approvalId: string, reason: string): ApprovalOutcome | undefined {
    return this.settle(approvalId, 'withdrawn', reason);
  }

  /**
   * Denies every prompt of one agent session at once ("Deny all from this agent"); other agents'
   * prompts stay. Returns the outcomes (none when the session has nothing waiting).
   */
  denyAllFrom(agentSession: string, reason?: string): ApprovalOutcome[] {
    const why = reason?.trim() || 'the person denied every prompt from this agent';
    const ids = [...this.pending.values()].filter((entry) => entry.request.agentSession === agentSession).map((entry) => entry.request.approvalId);
    return ids.map((approvalId) => this.settle(approvalId, 'denied', why)!);
  }

  /** The prompts waiting now, oldest first. */
  list(): ApprovalRequest[] {
    return [...this.pending.values()].map((entry) => entry.request);
  }

  /** Withdraws everything still waiting. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const approvalId of [...this.pending.keys()]) this.settle(approvalId, 'withdrawn', 'the gate is shutting down');
  }

  private settle(approvalId: string, outcome: ApprovalOutcome['outcome'], reason?: string, extras: DecisionExtras = {}, revised?: RevisedCall): ApprovalOutcome | undefined {
    const entry = this.pending.get(approvalId);
    if (!entry) return undefined;
    this.pending.delete(approvalId);
    const session = entry.request.agentSession ?? NO_SESSION;
    const left = (this.pendingBySession.get(session) ?? 1) - 1;
    if (left > 0) this.pendingBySession.set(session, left);
    else this.pendingBySession.delete(session);
    clearTimeout(entry.timer);
    this.ended.set(approvalId, { outcome, ...(reason ? { reason } : {}) });
    if (this.ended.size > ENDED_MEMORY) this.ended.delete(this.ended.keys().next().value!);
    const signed = outcome === 'approved' || outcome === 'denied' ? this.options.signedDecision?.(approvalId) : undefined;
    const result = { ...this.outcomeOf(entry.request, outcome, reason), ...extras, ...(signed ? { teamDecision: signed } : {}) };
    entry.resolve(revised ? { ...result, revised } : result);
    try {
      this.options.onResolved?.(result);
    } catch {
      // the decision stands whatever a listener does
    }
    return result;
  }

  private outcomeOf(request: ApprovalRequest, outcome: ApprovalOutcome['outcome'], reason?: string): ApprovalOutcome {
    return {
      approvalId: request.approvalId,
      callId: request.callId,
      outcome,
      ...(reason ? { reason } : {}),
      decidedAt: new Date().toISOString(),
    };
  }
}

/** How a prompt ended, in words for a person whose answer came too late. */
function endedText(ended: Pick<ApprovalOutcome, 'outcome' | 'reason'> | undefined): string {
  if (!ended) return 'it was answered, expired or never existed';
  const why = ended.reason ? ` (${ended.reason})` : '';
  if (ended.outcome === 'withdrawn') return `it was withdrawn${why}; its call did not run and cannot be approved`;
  if (ended.outcome === 'expired') return `it expired${why}; its call did not run`;
  return `it was already ${ended.outcome}${why}`;
}
