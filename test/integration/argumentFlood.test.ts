import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BridgeClient, connectMcp, rawRequest, startTestGate, textOf, type TestGate } from './helpers';
import { stepsOfAll } from '../../shared/auditSteps';

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
    const records = stepsOfAll(gate.running.gate.audit.list({ limit: 10 })).filter((record) => record.callId === result._meta?.['toolgate/callId']);
    expect(records.map((record) => record.kind)).toEqual(['invoked', 'rejected']);
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
    const refusal = stepsOfAll(gate.running.gate.audit.list({ limit: 5 })).find((record) => record.kind === 'rejected');
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
    expect(stepsOfAll(gate.running.gate.audit.list({ limit: 5 })).some((record) => record.kind === 'rejected')).toBe(true);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'alive' } }))).toBe('{"text":"alive"}');
  });

  it('a flood from one agent does not stall another: the other is answered throughout, and every flood refused', async () => {
    gate = await startTestGate();
    const other = await connectMcp(gate.running.mcpUrl, gate.token);
    // A person's console is open: every call's snapshots go to it too.
    const bridge = await BridgeClient.open(gate.running.port, gate.consoleToken);
    await other.callTool({ name: 'echo', arguments: { text: 'warm' } });
    // The flooding agent runs in a process of its own; the other agent's echo latency and the gate's
    // longest CPU block under it are timed in `npm run bench` (section flood).
    let codes: string[] = [];
    const echoes = await countEchoes(other, async () => {
      const { stdout } = await run(process.execPath, [FLOODING_AGENT, gate!.running.mcpUrl, gate!.token, '3'], { cwd: ROOT });
      codes = JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
    });
    expect(codes).toEqual(new Array(3).fill(['EVALIDATION', 'EVALIDATION', 'refused unread']).flat());
    bridge.close();
    expect(echoes).toBeGreaterThan(10);
  });
});

/** Calls echo over and over while `during` runs; how many answers came meanwhile. */
async function countEchoes(client: Client, during: () => Promise<void>): Promise<number> {
  let answered = 0;
  let running = true;
  const steady = (async () => {
    while (running) {
      await client.callTool({ name: 'echo', arguments: { text: 'ping' } });
      answered++;
    }
  })();
  await during();
  running = false;
  await steady;
  return answered;
}
