import { subscribe } from 'node:diagnostics_channel';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { GateDiagnostics } from '../../shared/contract';

/** How often the event loop is sampled while the gate works; a lag shorter than this is not seen. */
const SAMPLE_EVERY_MS = 10;
/** How long after its last request the gate counts as idle and stops sampling (until the next request). */
export const IDLE_AFTER_MS = 5_000;

/** A reading of the histogram as lag: it counts the sampling interval too, which is not lag. */
const lagMs = (nanoseconds: number) => Math.max(0, Math.round((nanoseconds / 1e6 - SAMPLE_EVERY_MS) * 100) / 100);

/**
 * The event loop's lag, sampled while the gate works: from an HTTP request (an agent's call, a
 * hook, the console) until IDLE_AFTER_MS after the last one. An idle gate is not woken a hundred
 * times a second to find its loop on time (which only pulled the figures towards 0). One per
 * process, as the event loop is.
 */
class WorkingLag {
  readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: SAMPLE_EVERY_MS });
  private lastRequest = 0;
  private idleCheck: ReturnType<typeof setInterval> | undefined;

  constructor() {
    subscribe('http.server.request.start', () => this.working());
  }

  /** Starts sampling (if it had stopped) and counts the gate busy from now. */
  working(): void {
    this.lastRequest = performance.now();
    if (this.idleCheck) return;
    this.histogram.enable();
    this.idleCheck = setInterval(() => {
      if (performance.now() - this.lastRequest < IDLE_AFTER_MS) return;
      this.histogram.disable();
      clearInterval(this.idleCheck);
      this.idleCheck = undefined;
    }, IDLE_AFTER_MS);
    // Neither timer keeps the process alive: a gate that closes exits as before.
    this.idleCheck.unref();
  }
}

let workingLag: WorkingLag | undefined;

/**
 * The gate process's own health for the console and the bench: its memory, and how late its event
 * loop ran while it worked (a late loop answers every agent and the console late). The lag is
 * measured inside the gate because only there does it mean anything; it counts from the start or
 * from the last reset.
 */
export class GateVitals {
  private readonly lag: WorkingLag;
  private since = performance.now();

  constructor() {
    this.lag = workingLag ??= new WorkingLag();
    this.lag.working();
  }

  /** Memory now, and the event loop's lag since the last reset; `reset` starts a new window after reading. */
  read(reset = false): GateDiagnostics {
    const memory = process.memoryUsage();
    const { histogram } = this.lag;
    const sampled = histogram.count > 0;
    const vitals: GateDiagnostics = {
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
      eventLoopLagMs: {
        p50: sampled ? lagMs(histogram.percentile(50)) : 0,
        p99: sampled ? lagMs(histogram.percentile(99)) : 0,
        max: sampled ? lagMs(histogram.max) : 0,
      },
      windowSeconds: Math.round((performance.now() - this.since) / 100) / 10,
      uptimeSeconds: Math.round(process.uptime()),
    };
    if (reset) {
      histogram.reset();
      this.since = performance.now();
    }
    return vitals;
  }
}
