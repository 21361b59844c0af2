import { execFile } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BridgeClient, connectMcp, rawRequest, startTestGate, textOf, type TestGate } from './helpers';

let gate: TestGate | undefined;
afterEach(async () => {
  await gate?.close();
  gate = undefined;
});

const MIB = 1024 * 1024;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FLOODING_AGENT = fileURLToPath(new URL('../fixtures/floodingAgent.mjs', import.meta.url));
const run = promisify(execFile);

function manyKeys(count: number): Record<string, number> {
  const object: Record<string, number> = {};
  for (let i = 0; i < count; i++) object[`key${i}`] = i;
  return object;
}

describe('arguments too large to hold', () => {
  it.each([
    ['a million-element array', () => ({ text: 'x', items: new Array(1_000_000).fill(0) }), 'maxElements bound is 100000'],
    ['an object with 15,000 keys', () => ({ text: 'x', ...manyKeys(15_000) }), 'maxKeysPerObject bound is 10000'],
    ['a 4 MiB string', () => ({ text: 'x'.repeat(4 * MIB + 1) }), `maxBytes bound is ${4 * MIB}`],
  ])('%s is refused with EVALIDATION naming the bound, audited small, and the gate keeps serving', async (_what, make, bound) => {
    gate = await startTestGate();
    const client = await connectMcp(gate.running.mcpUrl, gate.token);
    const seen: string[] = [];
    // What the console would receive: every call snapshot pushed over the bridge.
    gate.running.backend.subscribe('callUpdated', (snapshot) => seen.push(JSON.stringify(snapshot)));
    const rssBefore = process.memoryUsage().rss;
    const result = (await client.callTool({ name: 'echo', arguments: make() })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result._meta?.['toolgate/errorCode']).toBe('EVALIDATION');
    expect(textOf(result)).toContain(bound);
    expect(textOf(result)).toMatch(/send less, or split the work over several calls/);
    const records = gate.running.gate.audit.list({ limit: 10 }).filter((record) => record.callId === result._meta?.['toolgate/callId']);
    expect(records.map((record) => record.kind)).toEqual(['rejected', 'invoked']);
    for (const record of records) expect(JSON.stringify(record.payload).length).toBeLessThan(4096);
    for (const snapshot of seen) expect(snapshot.length).toBeLessThan(4096);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(256 * MIB);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'alive' } }))).toBe('{"text":"alive"}');
  });

  it.each([
    ['four million numbers', () => `[${'0,'.repeat(4_000_000)}0]`],
    ['a million empty objects', () => `[${'{},'.repeat(1_000_000)}{}]`],
    ['an object of 100k keys', () => JSON.stringify(manyKeys(100_000))],
  ])('a body of %s, too costly to parse, is refused unread with 413 and audited, and the gate keeps serving', async (_what, values) => {
    gate = await startTestGate();
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","items":${values()}}}}`;
    const answer = await rawRequest({
      port: gate.running.port,
      path: '/mcp',
      method: 'POST',
      headers: { authorization: `Bearer ${gate.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    });
    expect(answer.status).toBe(413);
    // Refused by the look before any parse (test/server/jsonShape.test.ts bounds how far that look reads).
    expect(answer.body).toMatch(/holds (too many values to read|an object with more than 20000 keys) .*send less, or split the work over several calls/);
    const refusal = gate.running.gate.audit.list({ limit: 5 }).find((record) => record.kind === 'rejected');
    expect(refusal?.payload).toMatchObject({ step: 'parse', error: { code: 'EVALIDATION' } });
    const client = await connectMcp(gate.running.mcpUrl, gate.token);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'alive' } }))).toBe('{"text":"alive"}');
  });

  it('the official client sending 100k keys reads why its request was refused', async () => {
    gate = await startTestGate();
    const client = await connectMcp(gate.running.mcpUrl, gate.token);
    await expect(client.callTool({ name: 'echo', arguments: { text: 'x', ...manyKeys(100_000) } })).rejects.toThrow(
      /an object with more than 20000 keys \(a call's arguments may have at most 10000 keys per object\)/,
    );
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'alive' } }))).toBe('{"text":"alive"}');
  });

  it('arguments sent as raw JSON text over the bound are refused with EVALIDATION before they are parsed', async () => {
    gate = await startTestGate();
    const client = await connectMcp(gate.running.mcpUrl, gate.token);
    const raw = JSON.stringify({ text: 'z'.repeat(4 * MIB + 10) });
    const result = (await client.callTool({ name: 'echo', arguments: {}, _meta: { 'toolgate/rawArguments': raw } })) as CallToolResult;
    expect(result._meta?.['toolgate/errorCode']).toBe('EVALIDATION');
    expect(textOf(result)).toContain(`maxBytes bound is ${4 * MIB}`);
  });

  it('a call that names its arguments twice is refused: what the agent\'s host shows is what runs', async () => {
    gate = await startTestGate();
    const client = await connectMcp(gate.running.mcpUrl, gate.token);
    // Raw text beside non-empty arguments, and the gate's own set-aside slot filled by the client.
    await expect(
      client.callTool({ name: 'echo', arguments: { text: 'harmless' }, _meta: { 'toolgate/rawArguments': '{"text":"something else"}' } }),
    ).rejects.toThrow(/sends its arguments twice.*send them once/);
    await expect(client.callTool({ name: 'echo', arguments: { text: 'harmless' }, _meta: { 'toolgate/heldArguments': { text: 'something else' } } })).rejects.toThrow(
      /toolgate\/heldArguments.*is the gate's own/,
    );
    // Raw text alone, with arguments empty, is still taken.
    expect(textOf(await client.callTool({ name: 'echo', arguments: {}, _meta: { 'toolgate/rawArguments': '{"text":"raw"}' } }))).toBe('{"text":"raw"}');
  });

  it('a flood hidden in the envelope instead of the arguments is refused before the MCP SDK walks it', async () => {
    gate = await startTestGate();
    const client = await connectMcp(gate.running.mcpUrl, gate.token);
    await expect(client.callTool({ name: 'echo', arguments: { text: 'x' }, _meta: manyKeys(15_000) })).rejects.toThrow(
      /the request's envelope \(everything but the arguments\) breaks a bound: .*maxKeysPerObject bound is 10000/,
    );
    expect(gate.running.gate.audit.list({ limit: 5 }).some((record) => record.kind === 'rejected')).toBe(true);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'alive' } }))).toBe('{"text":"alive"}');
  });

  it('a flood from one agent does not stall another: its echo p99 and the event-loop delay stay near their quiet level', async () => {
    gate = await startTestGate();
    const other = await connectMcp(gate.running.mcpUrl, gate.token);
    // A person's console is open: every call's snapshots go to it too.
    const bridge = await BridgeClient.open(gate.running.port, gate.consoleToken);
    await other.callTool({ name: 'echo', arguments: { text: 'warm' } });
    // The same measure with and without the flood: the machine may be busy with other work.
    const quiet = await measureEchoes(other, async () => {
      await new Promise((resolveWait) => setTimeout(resolveWait, 1_500));
    });
    // The flooding agent runs in a process of its own, so only the gate's work is measured here.
    let codes: string[] = [];
    const flooded = await measureEchoes(other, async () => {
      const { stdout } = await run(process.execPath, [FLOODING_AGENT, gate!.running.mcpUrl, gate!.token, '3'], { cwd: ROOT });
      codes = JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
    });
    expect(codes).toEqual(new Array(3).fill(['EVALIDATION', 'EVALIDATION', 'refused unread']).flat());
    bridge.close();
    process.stderr.write(`quiet: ${JSON.stringify(quiet)}\nflooded: ${JSON.stringify(flooded)}\n`);
    // About 50 ms of work at most in one turn (one parse of the largest body the gate reads), counted
    // in CPU time so that other work on a shared machine does not count. Before the bounds, one such
    // flood held the loop for most of a second. The other agent is answered all along; its wall-clock
    // latency is only held loosely, as it grows with whatever else the machine runs.
    expect(flooded.maxBlockCpuMs).toBeLessThan(80);
    expect(flooded.echoes).toBeGreaterThan(10);
    expect(flooded.p99Ms).toBeLessThan(Math.max(500, quiet.p99Ms * 5));
  });
});

/** What a stretch of echo calls saw. */
interface EchoMeasure {
  echoes: number;
  p99Ms: number;
  /** The longest event-loop delay, in wall time (grows when the machine is busy with other work). */
  maxDelayMs: number;
  /** The most CPU time this process spent between two ticks 5 ms apart: the longest block, whatever else runs. */
  maxBlockCpuMs: number;
}

/** Calls echo over and over while `during` runs, and watches the event loop meanwhile. */
async function measureEchoes(client: Client, during: () => Promise<void>): Promise<EchoMeasure> {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let maxBlockCpuMs = 0;
  let lastCpu = process.cpuUsage();
  const ticker = setInterval(() => {
    const spent = process.cpuUsage(lastCpu);
    lastCpu = process.cpuUsage();
    maxBlockCpuMs = Math.max(maxBlockCpuMs, (spent.user + spent.system) / 1000);
  }, 5);
  const latencies: number[] = [];
  let running = true;
  const steady = (async () => {
    while (running) {
      const started = performance.now();
      await client.callTool({ name: 'echo', arguments: { text: 'ping' } });
      latencies.push(performance.now() - started);
    }
  })();
  await during();
  running = false;
  await steady;
  clearInterval(ticker);
  delay.disable();
  latencies.sort((a, b) => a - b);
  const p99Ms = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0;
  return { echoes: latencies.length, p99Ms: Math.round(p99Ms), maxDelayMs: Math.round(delay.max / 1e6), maxBlockCpuMs: Math.round(maxBlockCpuMs) };
}
