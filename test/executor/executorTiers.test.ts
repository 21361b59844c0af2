import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolStatus } from '../../shared/health';
import type { Gate } from '../../main/gate/createGate';
import { WAIT_MS, waitUntil } from '../fixtures/processes';
import { auditKinds, nextApproval, openGate, type Harness } from './gateHarness';

const OUTPUT_TOOLS = resolve(__dirname, '../fixtures/tools/outputs.mjs');
const UNHEALTHY_TOOLS = resolve(__dirname, '../fixtures/tools/unhealthy.mjs');
const STREAMING_TOOLS = resolve(__dirname, '../fixtures/tools/streaming.mjs');

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Records whether the gate asked a person anything. */
function watchPrompts(gate: Gate): { asked: () => boolean } {
  let asked = false;
  gate.events.subscribe('approvalRequested', () => (asked = true));
  return { asked: () => asked };
}

/** The console's view of one tool, once `ready` holds for it (the first health check runs in the background). */
async function toolStatusOnce(gate: Gate, name: string, ready: (status: ToolStatus) => boolean, timeoutMs = WAIT_MS): Promise<ToolStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = (await gate.backend.handlers.listTools({})).find((tool) => tool.name === name);
    if (status && ready(status)) return status;
    if (Date.now() > deadline) throw new Error(`${name} did not reach the expected status in time: ${JSON.stringify(status)}`);
    await new Promise((wake) => setTimeout(wake, 50));
  }
}

describe('executor: tiers depend on the OS sandbox', () => {
  it('without a sandbox, read_file (STANDARD, reads files) asks a person and the policy record says why; echo still runs', async () => {
    harness = await openGate({ sandbox: 'off' });
    const g = harness.gate;
    expect(g.sandbox.kind).toBe('none');
    writeFileSync(join(harness.workspace, 'notes.txt'), 'hello\n');

    const prompt = nextApproval(g);
    const call = g.executor.call({ tool: 'read_file', arguments: { path: 'notes.txt' } });
    const request = await prompt;
    expect(request).toMatchObject({ tool: 'read_file', rule: 'tier:ELEVATED→ask' });
    g.approvals.decide(request.approvalId, 'approve');
    const result = await call;
    expect(result.ok).toBe(true);
    expect(result.data).toMatchObject({ content: 'hello\n' });
    const policy = g.audit.forCall(result.meta.callId).find((record) => record.kind === 'policy')!;
    expect(policy.payload).toMatchObject({ decision: 'ask', tierRaised: expect.stringContaining('no OS sandbox') });
    expect((policy.payload as { tierRaised: string }).tierRaised).toContain('treated as ELEVATED, not STANDARD');
    expect((policy.payload as { tierRaised: string }).tierRaised).toContain('--sandbox off');

    const prompts = watchPrompts(g);
    const echoed = await g.executor.call({ tool: 'echo', arguments: { text: 'pure' } });
    expect(echoed.data).toEqual({ text: 'pure' });
    expect(prompts.asked()).toBe(false);
    const echoPolicy = g.audit.forCall(echoed.meta.callId).find((record) => record.kind === 'policy')!;
    expect(echoPolicy.payload).not.toHaveProperty('tierRaised');
  });

  it('with the default sandbox (bubblewrap here), read_file runs without asking', async () => {
    harness = await openGate();
    const g = harness.gate;
    expect(g.sandbox.kind).toBe('bubblewrap');
    writeFileSync(join(harness.workspace, 'notes.txt'), 'hello\n');
    const prompts = watchPrompts(g);
    const result = await g.executor.call({ tool: 'read_file', arguments: { path: 'notes.txt' } });
    expect(result.data).toMatchObject({ content: 'hello\n' });
    expect(prompts.asked()).toBe(false);
    expect(auditKinds(g, result.meta.callId)).toEqual(['invoked', 'capability', 'policy', 'started', 'completed']);
    expect(g.audit.forCall(result.meta.callId)[2]!.payload).not.toHaveProperty('tierRaised');
  });
});

describe('executor: tools that fail their health check', () => {
  it('refuses an unhealthy tool at once with EUNAVAILABLE and its health message; a healthy one of the same module runs', async () => {
    harness = await openGate({ toolModules: [UNHEALTHY_TOOLS] });
    const g = harness.gate;
    await toolStatusOnce(g, 'licensed_lookup', (status) => status.health.state === 'unhealthy');
    await toolStatusOnce(g, 'clock_now', (status) => status.health.state === 'healthy');

    const refused = await g.executor.call({ tool: 'licensed_lookup', arguments: { key: 'k' } });
    expect(refused.error?.code).toBe('EUNAVAILABLE');
    expect(refused.error?.message).toContain('the license server is unreachable');
    // At once: refused before it started, so no tool process was asked.
    expect(auditKinds(g, refused.meta.callId)).toEqual(['invoked', 'rejected']);

    const clock = await g.executor.call({ tool: 'clock_now', arguments: {} });
    expect(clock.ok).toBe(true);
    expect(clock.data).toMatchObject({ now: expect.any(String) });
  });
});

describe('executor: scheduling', () => {
  it('runs calls that write one at a time, in the order they arrived', async () => {
    harness = await openGate({ toolModules: [OUTPUT_TOOLS], poolSize: 3 });
    const g = harness.gate;
    const labels = ['first', 'second', 'third'];
    const results = await Promise.all(labels.map((label) => g.executor.call({ tool: 'timed_write', arguments: { label, sleepMs: 200 } })));
    expect(results.map((result) => result.ok)).toEqual([true, true, true]);
    const spans = labels.map((label) => JSON.parse(readFileSync(join(harness!.workspace, `timed-${label}.json`), 'utf8')) as { start: number; end: number });
    for (let i = 1; i < spans.length; i++) {
      // Each started only after the one before it had ended.
      expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end);
    }
  });

  it('runs read-only calls side by side', async () => {
    harness = await openGate({ toolModules: [STREAMING_TOOLS], poolSize: 3 });
    const g = harness.gate;
    // Warm all three processes first, so the calls below need none started.
    await Promise.all([0, 1, 2].map(() => g.executor.call({ tool: 'stream_lines', arguments: { text: 'warm', lines: 1, gapMs: 0 } })));
    const started = new Set<string>();
    g.events.subscribe('callOutput', ({ callId, chunk }) => {
      if (chunk.includes('started')) started.add(callId);
    });
    // stream_forever never ends on its own: each is stopped only once all three have started.
    const running = [0, 1, 2].map(() => g.executor.call({ tool: 'stream_forever', arguments: {} }));
    await waitUntil(() => started.size === 3, 'three calls running at once');
    for (const callId of started) g.executor.stop(callId);
    const results = await Promise.all(running);
    // All three were running at one moment: each was still running when it was stopped (not past its deadline).
    expect(results.map((result) => result.error?.code)).toEqual(['EDENIED', 'EDENIED', 'EDENIED']);
  });
});
