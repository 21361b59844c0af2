import { randomUUID } from 'node:crypto';
import type { AuditKind } from '../../shared/audit';
import type { AgentInfo, CallSnapshot, CallSource } from '../../shared/call';
import type { ToolError } from '../../shared/errors';
import { hashCanonical } from '../../shared/hash';
import type { EditSummary } from '../../shared/approval';
import type { ToolResult } from '../../shared/result';
import type { TextFinding } from '../../shared/upstream';
import { editNote } from '../approvals/editedArguments';
import type { ExecutorDeps } from './executor';
import { shownOutput } from './steps/recordedArguments';

/** Milliseconds to the microsecond. */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** One call going through the pipeline: its id, clock and audit trail. */
export class CallRun {
  readonly callId = randomUUID();
  readonly startedAt = new Date();
  private readonly started = performance.now();
  /** The step the call is at, for the record if the gate itself fails mid-call. */
  step = 'invoked';
  /** Set when a person edited the call before approving it: what the result tells the agent. */
  edited: EditSummary | undefined;
  /** When its tool process was handed the call (performance.now()), once it was. */
  private ranFrom: number | undefined;

  constructor(
    private readonly deps: Pick<ExecutorDeps, 'audit' | 'calls' | 'redactions'>,
    readonly tool: string,
    readonly source: CallSource,
    readonly agentSession: string | undefined,
    readonly agent: AgentInfo | undefined,
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

  /** Marks the moment its tool starts running, for the time it ran (apart from the time it waited). */
  startRunning(): void {
    this.ranFrom = performance.now();
  }

  audit(kind: AuditKind, payload: unknown): void {
    this.deps.audit.append({ callId: this.callId, kind, payload });
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
    this.audit(kind, { step, error, responseHash, durationMs: this.elapsedMs(), ...(usage ? { usage } : {}) });
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
