import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { GateDiagnostics } from '../../shared/contract';

/** How often the event loop is sampled; a lag shorter than this is not seen. */
const SAMPLE_EVERY_MS = 10;

/** A reading of the histogram as lag: it counts the sampling interval too, which is not lag. */
const lagMs = (nanoseconds: number) => Math.max(0, Math.round((nanoseconds / 1e6 - SAMPLE_EVERY_MS) * 100) / 100);

/**
 * The gate process's own health for the console and the bench: its memory, and how late its event
 * loop ran (a late loop answers every agent and the console late). The lag is measured inside the
 * gate because only there does it mean anything; it counts from the start or from the last reset.
 */
export class GateVitals {
  private readonly lag: IntervalHistogram = monitorEventLoopDelay({ resolution: SAMPLE_EVERY_MS });
  private since = performance.now();

  constructor() {
    // The sampling timer does not keep the process alive: a gate that closes exits as before.
    this.lag.enable();
  }

  /** Memory now, and the event loop's lag since the last reset; `reset` starts a new window after reading. */
  read(reset = false): GateDiagnostics {
    const memory = process.memoryUsage();
    const sampled = this.lag.count > 0;
    const vitals: GateDiagnostics = {
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
      eventLoopLagMs: {
        p50: sampled ? lagMs(this.lag.percentile(50)) : 0,
        p99: sampled ? lagMs(this.lag.percentile(99)) : 0,
        max: sampled ? lagMs(this.lag.max) : 0,
      },
      windowSeconds: Math.round((performance.now() - this.since) / 100) / 10,
      uptimeSeconds: Math.round(process.uptime()),
    };
    if (reset) {
      this.lag.reset();
      this.since = performance.now();
    }
    return vitals;
  }
}
