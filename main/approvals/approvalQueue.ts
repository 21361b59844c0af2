import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, ApprovalOutcome, ApprovalRequest } from '../../shared/approval';
import { GateError } from '../../shared/errors';

/** What the executor supplies when it asks a person; the queue adds id and times. */
export type ApprovalAsk = Omit<ApprovalRequest, 'approvalId' | 'requestedAt' | 'expiresAt'>;

/** Options of the approval queue. */
export interface ApprovalQueueOptions {
  /** How long a prompt waits before it is denied. */
  timeoutMs: number;
  /** Told of each new prompt. */
  onRequested?: (request: ApprovalRequest) => void;
  /** Told of each outcome. */
  onResolved?: (outcome: ApprovalOutcome) => void;
}

interface Pending {
  request: ApprovalRequest;
  resolve: (outcome: ApprovalOutcome) => void;
  timer: NodeJS.Timeout;
}

/** Prompts waiting for a person. Ids are issued here; the console can only answer what it was shown. */
export class ApprovalQueue {
  private readonly pending = new Map<string, Pending>();
  private closed = false;

  constructor(private readonly options: ApprovalQueueOptions) {}

  /** Asks a person; the promise settles with their decision, or 'expired' after the timeout. */
  ask(ask: ApprovalAsk): { request: ApprovalRequest; outcome: Promise<ApprovalOutcome> } {
    const now = Date.now();
    const request: ApprovalRequest = {
      ...ask,
      approvalId: randomUUID(),
      requestedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.options.timeoutMs).toISOString(),
    };
    const outcome = new Promise<ApprovalOutcome>((resolve) => {
      if (this.closed) {
        resolve(this.outcomeOf(request, 'withdrawn', 'the gate is shutting down'));
        return;
      }
      const timer = setTimeout(
        () => this.settle(request.approvalId, 'expired', `nobody answered within ${Math.round(this.options.timeoutMs / 1000)} s`),
        this.options.timeoutMs,
      );
      timer.unref();
      this.pending.set(request.approvalId, { request, resolve, timer });
    });
    if (!this.closed) this.options.onRequested?.(request);
    return { request, outcome };
  }

  /** A person's answer. Refuses ids that are unknown, already answered or expired. */
  decide(approvalId: string, decision: ApprovalDecision, reason?: string): ApprovalOutcome {
    if (!this.pending.has(approvalId)) {
      throw new GateError('ENOTFOUND', 'that prompt is no longer waiting (it was answered, expired or never existed)');
    }
    const trimmed = reason?.trim();
    if (decision === 'deny') return this.settle(approvalId, 'denied', trimmed || 'denied by the person at the console')!;
    return this.settle(approvalId, 'approved', trimmed || undefined)!;
  }

  /** Takes a prompt back because its call went away (the agent cancelled it). Unknown ids are ignored. */
  withdraw(approvalId: string, reason: string): ApprovalOutcome | undefined {
    return this.settle(approvalId, 'withdrawn', reason);
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

  private settle(approvalId: string, outcome: ApprovalOutcome['outcome'], reason?: string): ApprovalOutcome | undefined {
    const entry = this.pending.get(approvalId);
    if (!entry) return undefined;
    this.pending.delete(approvalId);
    clearTimeout(entry.timer);
    const result = this.outcomeOf(entry.request, outcome, reason);
    entry.resolve(result);
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
