/**
 * The gate's own health as the console's Settings shows it: memory, and how late the event loop
 * ran. Only lower bounds are checked (a busy machine makes lag larger, never smaller).
 */
import { describe, expect, it } from 'vitest';
import { GateVitals } from '../../main/gate/gateVitals';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Holds the event loop the way a slow synchronous step in the gate would. */
function blockLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

describe('GateVitals', () => {
  it('reports the memory the gate holds', () => {
    const vitals = new GateVitals();
    const read = vitals.read();
    expect(read.rssBytes).toBeGreaterThan(read.heapUsedBytes);
    expect(read.heapUsedBytes).toBeGreaterThan(0);
  });

  it('sees a loop held for 150 ms, and forgets it after a reset', async () => {
    const vitals = new GateVitals();
    await pause(50);
    blockLoop(150);
    await pause(50);
    const held = vitals.read(true);
    expect(held.eventLoopLagMs.max).toBeGreaterThanOrEqual(100);
    expect(held.eventLoopLagMs.p99).toBeGreaterThanOrEqual(held.eventLoopLagMs.p50);
    // Read at once, so no lag of a busy machine's own comes into the new window: the 150 ms hold is in
    // the window before the reset, not in this one.
    const after = vitals.read();
    expect(after.windowSeconds).toBeLessThan(held.windowSeconds);
    expect(after.eventLoopLagMs.max).toBeLessThan(held.eventLoopLagMs.max);
  });
});
