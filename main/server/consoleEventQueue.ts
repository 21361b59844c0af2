import type { BridgeEventName } from '../../shared/contract';

/**
 * How long a console's events gather before they go as one frame: under two frames at 60 Hz, so
 * nothing a person watches is late, while a hundred calls a second cost the gate some thirty sends
 * a second instead of a thousand.
 */
export const EVENT_BATCH_MS = 30;

/** One event on its way to a console. */
export interface QueuedEvent {
  readonly event: BridgeEventName;
  readonly payload: unknown;
}

/**
 * The events bound for one console, sent together every EVENT_BATCH_MS. A call's snapshots are
 * coalesced within a status: a callUpdated replaces the same call's waiting snapshot when both
 * have the same status (the steps of its checks, say), so the console gets each status a call went
 * through (awaiting-approval is never skipped) with its latest step, and always the last snapshot.
 * Every other event goes as it came, in order.
 */
export class ConsoleEventQueue {
  private queued: QueuedEvent[] = [];
  /** Where each call's latest waiting snapshot sits in `queued`. */
  private callSlots = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    private readonly send: (events: readonly QueuedEvent[]) => void,
    private readonly delayMs = EVENT_BATCH_MS,
  ) {}

  /** Queues one event; the first of a batch starts its timer. */
  push(event: BridgeEventName, payload: unknown): void {
    if (this.closed) return;
    const call = event === 'callUpdated' ? (payload as { callId?: unknown; status?: unknown } | null) : undefined;
    if (typeof call?.callId === 'string') {
      const slot = this.callSlots.get(call.callId);
      if (slot !== undefined && (this.queued[slot]!.payload as { status?: unknown }).status === call.status) {
        this.queued[slot] = { event, payload };
        return;
      }
      this.callSlots.set(call.callId, this.queued.length);
    }
    this.queued.push({ event, payload });
    this.timer ??= setTimeout(() => this.flush(), this.delayMs);
  }

  /** Sends what is queued now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed || this.queued.length === 0) return;
    const events = this.queued;
    this.queued = [];
    this.callSlots = new Map();
    this.send(events);
  }

  /** Drops what is queued and ignores what comes after; safe to call twice. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.queued = [];
    this.callSlots.clear();
  }
}
