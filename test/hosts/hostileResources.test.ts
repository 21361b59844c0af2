import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolResult } from '../../shared/result';
import { openGate, terminalCount, type Harness } from '../executor/gateHarness';
import { measureRssGrowth, processesWithMarker, uniqueMarker, waitUntil } from '../fixtures/processes';

/**
 * A tool that burns the CPU, memory, processes, output or the message channel is stopped with the
 * right error, costs the gate next to nothing, and the next call runs as if nothing happened.
 */

const HOSTILE_PROCESS = resolve(__dirname, '../fixtures/tools/hostileProcess.mjs');

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A gate in bubblewrap (it fails loudly when the machine has none) with the hostile process tools. */
async function open(options: Parameters<typeof openGate>[0] = {}): Promise<Harness> {
  harness = await openGate({ sandbox: 'require', toolModules: [HOSTILE_PROCESS], ...options });
  return harness;
}

function call(tool: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return harness!.gate.executor.call({ tool, arguments: args, source: 'test' });
}

/**
 * Waits for the health checks a gate starts with: they queue for tool processes like calls do, so a
 * rush right after opening would share the queue with them.
 */
async function healthChecked(): Promise<void> {
  const { handlers } = harness!.gate.backend;
  await waitUntil(async () => (await handlers.listTools({})).every((tool) => tool.health.state !== 'unknown'), 'the start-up health checks');
}

/**
 * Loads the fixture module in the warm tool process with a quick call of one of its tools, so a short
 * deadline measures the hostile tool and not the import on a busy machine.
 */
async function warmUp(): Promise<void> {
  expect(await call('slow', { ms: 0 })).toMatchObject({ ok: true });
}

/** The hostile call left exactly one terminal record, and an echo right after it works. */
async function expectGateRecovered(hostile: ToolResult): Promise<void> {
  expect(terminalCount(harness!.gate, hostile.meta.callId)).toBe(1);
  const next = await call('echo', { text: 'still here' });
  expect(next).toMatchObject({ ok: true, data: { text: 'still here' } });
}

describe('hostile tools: resources', () => {
  it('kills a busy loop that ignores SIGTERM with SIGKILL after the grace, and it is gone', async () => {
    await open();
    await warmUp();
    const marker = uniqueMarker('spin');
    const running = call('spin_forever', { marker });
    await waitUntil(() => processesWithMarker(marker).length > 0, 'the spinning tool process to show its marker');
    const result = await running;
    expect(result.error).toMatchObject({ code: 'ETIMEOUT', details: { timeoutMs: 500, endedBy: 'SIGKILL' } });
    expect((result.error!.details as { ranMs: number }).ranMs).toBeGreaterThanOrEqual(500);
    await waitUntil(() => processesWithMarker(marker).length === 0, 'the spinning process to be gone');
    await expectGateRecovered(result);
  });

  it('stops a fork bomb at the process limit long before its deadline, and none of it survives', async () => {
    await open();
    const marker = uniqueMarker('bomb');
    const result = await call('fork_bomb', { marker });
    // EQUOTA, not ETIMEOUT: the process limit ended it, before its deadline could.
    expect(result.error).toMatchObject({ code: 'EQUOTA', details: { maxProcesses: 64 } });
    expect(result.error!.message).toContain('processes');
    // The kernel's wall (a pids cgroup of 64 × 4 + 32 tasks) held it: the machine's process table never filled.
    expect((result.error!.details as { processes: number }).processes).toBeLessThanOrEqual(64 * 4 + 32);
    await waitUntil(() => processesWithMarker(marker).length === 0, 'every process of the fork bomb to be gone');
    await expectGateRecovered(result);
  });

  it('kills a tool whose Buffers outgrow its memory bound early, without the gate growing', async () => {
    await open();
    const { result, grownMb } = await measureRssGrowth(() => call('memory_balloon'));
    expect(result.error).toMatchObject({ code: 'EQUOTA', details: { maxMemoryMb: 192 } });
    expect(result.error!.message).toContain('memory');
    const { peakMemoryMb } = result.error!.details as { peakMemoryMb: number };
    expect(peakMemoryMb).toBeGreaterThanOrEqual(192);
    expect(peakMemoryMb).toBeLessThan(2048);
    expect(grownMb).toBeLessThan(100);
    await expectGateRecovered(result);
  });

  it('stops a single 1 GiB allocation at the memory bound: the kernel holds the limit, not a sampler', async () => {
    await open();
    const { result, grownMb } = await measureRssGrowth(() => call('memory_spike'));
    expect(result.error).toMatchObject({ code: 'EQUOTA', details: { maxMemoryMb: 192, enforcedBy: 'cgroup' } });
    // The peak is the bound itself: nothing near the gigabyte was ever charged.
    expect((result.error!.details as { peakMemoryMb: number }).peakMemoryMb).toBeLessThanOrEqual(200);
    expect(grownMb).toBeLessThan(100);
    await expectGateRecovered(result);
  });

  it('kills a tool writing 1 GiB to stdout without a newline once it passes 4 MiB, without the gate growing', async () => {
    await open();
    const { result, grownMb } = await measureRssGrowth(() => call('stdout_flood'));
    expect(result.error).toMatchObject({ code: 'EQUOTA', details: { limitBytes: 4 * 2 ** 20 } });
    expect(result.error!.message).toContain('stdout');
    expect(grownMb).toBeLessThan(100);
    await expectGateRecovered(result);
  });

  it('kills a tool announcing a 1 GiB message on its channel before buffering any of it', async () => {
    await open();
    const { result, grownMb } = await measureRssGrowth(() => call('oversize_frame'));
    expect(result.error?.code).toBe('EQUOTA');
    expect(result.error!.message).toContain(`${2 ** 30}-byte message`);
    expect(grownMb).toBeLessThan(100);
    await expectGateRecovered(result);
  });
});

describe('hostile tools: load', () => {
  it('answers 200 concurrent calls on a pool of 4, each with its own text', async () => {
    await open({ poolSize: 4 });
    const texts = Array.from({ length: 200 }, (_, i) => `call ${i}`);
    const results = await Promise.all(texts.map((text) => call('echo', { text })));
    results.forEach((result, i) => expect(result).toMatchObject({ ok: true, data: { text: texts[i] } }));
    for (const result of results) expect(terminalCount(harness!.gate, result.meta.callId)).toBe(1);
  });

  it('refuses what does not fit in a queue of 20 with EQUOTA, runs the rest, and hangs nothing', async () => {
    await open({ poolSize: 4, maxQueued: 20 });
    await healthChecked();
    const results = await Promise.all(Array.from({ length: 200 }, () => call('slow', { ms: 200 })));
    const refused = results.filter((result) => !result.ok);
    const served = results.filter((result) => result.ok);
    expect(refused.length).toBeGreaterThan(0);
    // Four running and twenty waiting at least; more when a process frees before the last call arrives.
    expect(served.length).toBeGreaterThanOrEqual(24);
    for (const result of refused) {
      expect(result.error?.code).toBe('EQUOTA');
      expect(result.error!.message).toContain('try again');
    }
    for (const result of served) expect(result.data).toEqual({ slept: 200 });
    for (const result of results) expect(terminalCount(harness!.gate, result.meta.callId)).toBe(1);
    expect(harness!.gate.pool.stats().queued).toBe(0);
    expect((await call('echo', { text: 'after the rush' })).ok).toBe(true);
  });

  // Known bug (reported to the lead): health checks wait in the calls' queue, and a check refused
  // because that queue is full marks its tool unavailable for five minutes. Drop `.fails` once fixed.
  it('keeps a tool available when its start-up health check found the queue full', async () => {
    await open({ poolSize: 1, maxQueued: 5 });
    await healthChecked();
    expect(await call('slow', { ms: 1 })).toMatchObject({ ok: true });
  });
});
