import { CLOSING_KINDS, type AuditRecord } from '../../shared/audit';
import { countOf, nounFor } from '../../shared/plural';
import type { AuditStore } from './auditStore';
import { summarizeCall } from './callSummary';
import { callSpan, otlpRequest, type OtlpSpan } from './otlpSpans';

/** Where and how ended calls are sent as spans (settings `otlpEndpoint`, `otlpHeaders`). */
export interface OtlpStreamOptions {
  /** The OTLP/HTTP traces endpoint, e.g. http://localhost:4318/v1/traces. */
  endpoint: string;
  /** Headers sent with each POST (e.g. an API key a collector wants). */
  headers?: Record<string, string>;
  /** How long ended calls gather before one POST, in milliseconds. */
  batchMs?: number;
  /** Spans per POST at most. */
  maxBatch?: number;
  /** How long one POST may take before it is given up, in milliseconds. */
  timeoutMs?: number;
  /** Calls kept waiting at most while the endpoint is slow or down; past it the oldest are dropped (and counted). */
  maxQueued?: number;
  /** Where a failure is reported: once when sending starts failing, once when it works again. */
  log?: (message: string) => void;
}

/** What the streamer has done, for the person and the tests. */
export interface OtlpStreamStats {
  sent: number;
  failed: number;
  dropped: number;
}

/** The records that end a call (its span is complete then; an anchor-accepted record has no span, spanOf sends nothing for it). */
const ENDS = new Set<AuditRecord['kind']>(CLOSING_KINDS);

/**
 * Sends each call's span to an OTLP/HTTP endpoint once the call ends: batched, with a short
 * timeout, off the call's path (the audit append only notes the call id). A failing endpoint never
 * fails or slows a call: its spans are counted as failed and the failure is logged once, not per call.
 * Spans carry no arguments or results.
 */
export class OtlpStreamer {
  private readonly pending: string[] = [];
  private readonly stats: OtlpStreamStats = { sent: 0, failed: 0, dropped: 0 };
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();
  private failing = false;
  private closed = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: Pick<AuditStore, 'onAppend' | 'forCall'>,
    private readonly options: OtlpStreamOptions,
  ) {
    this.unsubscribe = store.onAppend((record) => this.noted(record));
  }

  /** How many spans were sent, failed to send, or dropped while the endpoint could not keep up. */
  counts(): OtlpStreamStats {
    return { ...this.stats };
  }

  private noted(record: AuditRecord): void {
    if (this.closed || !ENDS.has(record.kind)) return;
    this.pending.push(record.callId);
    const overflow = this.pending.length - (this.options.maxQueued ?? 2000);
    if (overflow > 0) {
      this.pending.splice(0, overflow);
      this.stats.dropped += overflow;
    }
    if (this.pending.length >= (this.options.maxBatch ?? 100)) this.flushSoon(0);
    else this.flushSoon(this.options.batchMs ?? 1000);
  }

  private flushSoon(delayMs: number): void {
    if (this.timer && delayMs > 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
    this.timer.unref?.();
  }

  /** Sends what has gathered now (batch by batch); resolves when every POST so far has ended. */
  flush(): Promise<void> {
    this.sending = this.sending.then(async () => {
      while (this.pending.length > 0) {
        const callIds = this.pending.splice(0, this.options.maxBatch ?? 100);
        await this.post(callIds.flatMap((callId) => this.spanOf(callId)));
        if (this.closed && this.failing) {
          // Closing with the endpoint down: one timed-out POST is all the gate waits for; the rest are counted, not tried.
          this.stats.failed += this.pending.splice(0).length;
        }
      }
    });
    return this.sending;
  }

  private spanOf(callId: string): OtlpSpan[] {
    try {
      const records = this.store.forCall(callId);
      const row = summarizeCall(records)?.row;
      return row ? [callSpan({ row, records }, { content: false })] : [];
    } catch {
      // The store closed under a late flush: nothing more to send.
      return [];
    }
  }

  private async post(spans: OtlpSpan[]): Promise<void> {
    if (spans.length === 0) return;
    try {
      const response = await fetch(this.options.endpoint, {
        method: 'POST',
        headers: { ...this.options.headers, 'content-type': 'application/json' },
        body: otlpRequest(spans),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 3000),
      });
      await response.arrayBuffer().catch(() => undefined);
      if (!response.ok) throw new Error(`it answered HTTP ${response.status}`);
      this.stats.sent += spans.length;
      if (this.failing) {
        this.failing = false;
        this.options.log?.(`OTLP export to ${this.options.endpoint} works again (${countOf(this.stats.failed, 'span')} ${nounFor(this.stats.failed, 'was', 'were')} not sent while it failed)`);
      }
    } catch (error) {
      this.stats.failed += spans.length;
      if (!this.failing) {
        this.failing = true;
        const why = (error as Error).name === 'TimeoutError' ? `it did not answer within ${this.options.timeoutMs ?? 3000} ms` : (error as Error).message;
        this.options.log?.(`OTLP export to ${this.options.endpoint} failed (${why}); calls go on, their spans are counted as not sent until it works again`);
      }
    }
  }

  /** Stops listening and sends what is left; with the endpoint failing, it gives up after one more POST. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return this.sending;
    this.closed = true;
    this.unsubscribe();
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
