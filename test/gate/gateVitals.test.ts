/**
 * The gate's own health as the console's Settings shows it: memory, and how late the event loop
 * ran while it worked. Only lower bounds are checked (a busy machine makes lag larger, never
 * smaller), except that an idle gate samples nothing at all.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { GateVitals } from '../../main/gate/gateVitals';
import { waitUntil } from '../fixtures/processes';

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

  it('stops sampling once the gate is idle, and samples again from its next HTTP request', async () => {
    const vitals = new GateVitals();
    /** Whether a 150 ms hold of the loop, now, is seen. */
    const holdSeen = async () => {
      vitals.read(true);
      await pause(20);
      blockLoop(150);
      await pause(20);
      return vitals.read().eventLoopLagMs.max >= 100;
    };
    expect(await holdSeen()).toBe(true);
    // Idle (no request since): the sampler stops and an idle loop is no longer woken to be timed.
    await waitUntil(async () => {
      await pause(1_000);
      return !(await holdSeen());
    }, 'the lag sampler to stop on an idle gate');

    const server = createServer((_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      await (await fetch(`http://127.0.0.1:${port}/`)).text();
      expect(await holdSeen()).toBe(true);
    } finally {
      server.close();
    }
  });
});

