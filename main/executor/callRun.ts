import { newCallId } from '../audit/callId';
import { StepKindSchema, type AuditKind, type CallStep, type StepKind } from '../../shared/audit';
import type { AgentInfo, CallSnapshot, CallSource } from '../../shared/call';
import type { ToolError } from '../../shared/errors';
import { hashCanonical } from '../../shared/hash';
import type { ApprovalRequest, EditSummary } from '../../shared/approval';
import { changedPathsOf, type CallEffects } from '../../shared/effects';
import type { ToolResult } from '../../shared/result';
import type { TextFinding } from '../../shared/upstream';
import { editNote } from '../approvals/editedArguments';
import { PreparedStep } from '../audit/preparedStep';
import type { ExecutorDeps } from './executorDeps';
import { shownOutput } from './steps/recordedArguments';

/** Steps after which the call's steps so far are written at once: a person is asked, or decided. */
const WRITTEN_AT_ONCE: ReadonlySet<StepKind> = new Set(['approval-requested', 'approval-decided']);

/** Steps that end a call: its steps are written, the last record of the call. */
const ENDING: ReadonlySet<StepKind> = new Set(['completed', 'failed', 'rejected']);

/** How a step is written. */
export interface StepOptions {
  /**
   * For `started`: the tool may run before the call's steps are in the log (it changes nothing and
   * reads only this machine), so they wait for its end and go in one record with it. Without it, a
   * `started` step is a write-ahead: written now, and the tool runs once it is committed.
   */
  mayRunFirst?: boolean;
  /** When the step happened, if not now (ISO 8601). */
  at?: string;
}

const STEP_KINDS: ReadonlySet<string> = new Set(StepKindSchema.options);

function isStep(kind: string): kind is StepKind {
  return STEP_KINDS.has(kind);
}

/** Milliseconds to the microsecond. */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * One call going through the pipeline: its id, clock and audit trail. Its steps are kept here and
 * written as few records as durability needs (see audit()): a call that changes nothing is one
 * `call` record written at its end.
 */
export class CallRun {
  readonly callId = newCallId();
  readonly startedAt = new Date();
  private readonly started = performance.now();
  /** The step the call is at, for the record if the gate itself fails mid-call. */
  step = 'invoked';
  /** Set when a person edited the call before approving it: what the result tells the agent. */
  edited: EditSummary | undefined;
  /** What the call changed in the workspace, once its tool ran (a failed call may have changed files too). */
  effects: CallEffects | undefined;
  /** When its tool process was handed the call (performance.now()), once it was. */
  private ranFrom: number | undefined;
  /** Steps not written yet, oldest first (some canonicalized ahead: see prepareKept()). */
  private steps: Array<CallStep | PreparedStep> = [];
  /** Whether a record of this call is in the log (or queued for it) already. */
  private begun = false;
  /** Whether a record of it was written before its end. */
  private wroteAhead = false;
  /** Lets go of the audit's hold on the steps kept (see audit()), while it has one. */
  private releaseHold: (() => void) | undefined;

  constructor(
    private readonly deps: Pick<ExecutorDeps, 'audit' | 'calls' | 'redactions'>,
    readonly tool: string,
    readonly source: CallSource,
    readonly agentSession: string | undefined,
    readonly agent: AgentInfo | undefined,
    /**
     * True when whoever runs the call needs its steps in the log only where audit() writes them
     * (the executor). Otherwise steps kept are also written whenever anyone awaits the audit's
     * durable(): a judge that answers once durable() resolved is never ahead of its call's steps.
     */
    private readonly writesAtItsOwnPoints = false,
  ) {}

  /** The session and who it says it is, as the snapshot, the prompt and the audit carry them. */
  who(): { agentSession?: string; agent?: AgentInfo } {
    return { ...(this.agentSession ? { agentSession: this.agentSession } : {}), ...(this.agent ? { agent: this.agent } : {}) };
  }

  /**
   * Opens the call: its snapshot in the Live view and its `invoked` record, both with the arguments
   * as shown (redacted, bounded) and `tool` as recorded; `recorded` adds to the record.
   */
  begin(tool: string, shown: unknown, recorded: Record<string, unknown> = {}, snapshot: Partial<CallSnapshot> = {}): void {
    this.deps.calls.start({
      callId: this.callId,
      tool,
      arguments: shown,
      source: this.source,
      ...this.who(),
      status: 'checking',
      step: 'invoked',
      startedAt: this.startedAt.toISOString(),
      ...snapshot,
    });
    this.audit('invoked', { tool, source: this.source, ...this.who(), arguments: shown, ...recorded });
  }

  /** Whether nothing of the call was written ahead of its end (no write-ahead, no person asked): it is one record. */
  get isOneRecord(): boolean {
    return !this.wroteAhead;
  }

  /** Marks the moment its tool starts running, for the time it ran (apart from the time it waited). */
  startRunning(): void {
    this.ranFrom = performance.now();
  }

  /**
   * Records one step of the call. Kept until durability needs it written: a person asked or
   * deciding, a tool about to run (unless `mayRunFirst`), or the call's end; then every step kept is
   * written in one record. A kind that is no step of a call (none is today) is a record of its own.
   */
  audit(kind: AuditKind, payload: unknown, options: StepOptions = {}): void {
    if (!isStep(kind)) {
      this.writeSteps(false);
      this.deps.audit.append({ callId: this.callId, kind, payload });
      return;
    }
    const time = options.at ?? new Date().toISOString();
    const atMs = options.at === undefined ? this.elapsedMs() : roundMs(this.elapsedMs() - (Date.now() - Date.parse(options.at)));
    this.steps.push({ kind, time, atMs, payload });
    if (ENDING.has(kind)) this.writeSteps(true);
    else if (WRITTEN_AT_ONCE.has(kind) || (kind === 'started' && !options.mayRunFirst)) this.writeSteps(false);
    else if (!this.writesAtItsOwnPoints && !this.releaseHold) {
      const hold = this.deps.audit.holdUntilDurable;
      if (hold) this.releaseHold = hold.call(this.deps.audit, () => this.writeSteps(false));
      else this.writeSteps(false);
    }
  }

  /**
   * Canonicalizes the steps kept so far (AuditSink.prepareStep), so that the record written at the
   * call's end only canonicalizes what came after; the executor calls it once the tool has the call,
   * while the gate waits for it. A step that cannot be prepared is left as it is: append() then
   * fails on it where it would have.
   */
  prepareKept(): void {
    const { audit } = this.deps;
    if (!audit.prepareStep) return;
    const { steps } = this;
    for (let index = 0; index < steps.length; index++) {
      const step = steps[index]!;
      if (step instanceof PreparedStep) continue;
      try {
        steps[index] = audit.prepareStep(step);
      } catch {
        // left as it is
      }
    }
  }

  /** Appends the steps kept as one record: the call's first, a middle one, its last, or the whole call. */
  private writeSteps(ends: boolean): void {
    this.releaseHold?.();
    this.releaseHold = undefined;
    if (this.steps.length === 0) return;
    const kind = ends ? (this.begun ? 'call-ended' : 'call') : this.begun ? 'call-step' : 'call-begun';
    const steps = this.steps;
    this.steps = [];
    this.begun = true;
    if (!ends) this.wroteAhead = true;
    this.deps.audit.append({ callId: this.callId, kind, payload: { steps } });
  }

  /**
   * Records that a person was asked, at the moment the prompt was made: its timeout counts from
   * there, and so does the wait the log and the Live view show. Whatever held the gate between
   * the two (a listener, a pause of the whole process) is then inside the wait, as the prompt had it.
   */
  askedPerson(request: ApprovalRequest, payload: Record<string, unknown>): void {
    this.audit('approval-requested', { ...payload, approvalId: request.approvalId, expiresAt: request.expiresAt }, { at: request.requestedAt });
    this.at('approval', { status: 'awaiting-approval', approvalId: request.approvalId, askedAt: request.requestedAt });
  }

  /** Milliseconds since this prompt was made. */
  static waitedSince(request: ApprovalRequest): number {
    return Math.max(0, Date.now() - Date.parse(request.requestedAt));
  }

  elapsedMs(): number {
    return roundMs(performance.now() - this.started);
  }

  /** Moves the call to a step, for the Live view. */
  at(step: string, change: Partial<CallSnapshot> = {}): void {
    this.step = step;
    this.deps.calls.update(this.callId, { step, ...change });
  }

  /** Ends the call with an error: audits it as the terminal record and builds the result. */
  fail(kind: 'rejected' | 'failed', step: string, unredacted: ToolError, usage?: unknown): ToolResult {
    // A message may quote a secret (a tool's error, an input echoed back): no secret is ever returned.
    const error = this.deps.redactions.redactValue(unredacted);
    const responseHash = hashCanonical(error);
    this.audit(kind, { step, error, responseHash, durationMs: this.elapsedMs(), ...(usage ? { usage } : {}), ...(this.effects ? { effects: this.effects } : {}) });
    return this.finish({ ok: false, error }, responseHash, kind === 'rejected' ? 'rejected' : 'failed', step);
  }

  finish(
    outcome: { ok: boolean; data?: unknown; error?: ToolError },
    responseHash: string,
    status: 'completed' | 'rejected' | 'failed',
    step: string,
    truncated = false,
    /** The data is an upstream MCP server's result, passed on as its content blocks. */
    upstream = false,
    /** What the checks found in an upstream result that may be aimed at the model. */
    findings?: TextFinding[],
  ): ToolResult {
    const endedAt = new Date();
    const durationMs = this.elapsedMs();
    this.deps.calls.update(this.callId, {
      status,
      step,
      endedAt: endedAt.toISOString(),
      durationMs,
      ...(this.ranFrom !== undefined ? { ranMs: roundMs(performance.now() - this.ranFrom) } : {}),
      responseHash,
      // The console is sent a bounded form of the output; the result carries it whole.
      ...(outcome.ok ? { data: shownOutput(outcome.data) } : { error: outcome.error }),
      ...(findings?.length ? { findings } : {}),
      ...changedPathsOf(this.effects),
    });
    return {
      ...outcome,
      meta: {
        callId: this.callId,
        startedAt: this.startedAt.toISOString(),
        endedAt: endedAt.toISOString(),
        durationMs,
        responseHash,
        ...(truncated ? { truncated: true } : {}),
        ...(upstream ? { upstream: true } : {}),
        ...(findings ? { findings: findings.length } : {}),
        ...(this.edited ? { edited: { note: this.deps.redactions.redactValue(editNote(this.edited, outcome.ok)), ...this.edited } } : {}),
      },
    };
  }
}
