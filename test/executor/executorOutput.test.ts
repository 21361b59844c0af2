import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalize } from '../../shared/canonicalJson';
import { DEFAULT_BOUNDS } from '../../shared/manifest';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { connectMcp, makeTempDirs, readToken, textOf, type TempDirs } from '../integration/helpers';
import { openGate, type Harness } from './gateHarness';

const OUTPUT_TOOLS = resolve(__dirname, '../fixtures/tools/outputs.mjs');
/** The cap big_output runs under: the default maxOutputBytes, 16 KiB. */
const CAP = DEFAULT_BOUNDS.maxOutputBytes;

let harness: Harness | undefined;
let served: { running: RunningGate; dirs: TempDirs; client?: Client } | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await served?.client?.close();
  await served?.running.close();
  served?.dirs.remove();
  served = undefined;
});

async function gate() {
  harness = await openGate({ toolModules: [OUTPUT_TOOLS] });
  return harness.gate;
}

/** What big_output returns for these arguments (the same arithmetic as the fixture). */
function bigOutput(bytes: number, unit = 'x'): { text: string } {
  return { text: unit.repeat(Math.floor(bytes / Buffer.byteLength(unit, 'utf8'))) };
}

/** The notice seed 003 puts after a cut output, for an output of this canonical size. */
function notice(output: unknown): string {
  const size = Buffer.byteLength(canonicalize(output), 'utf8');
  return `[output truncated — original size: ${size.toLocaleString('en-US')} bytes]`;
}

describe('executor: output capped at maxOutputBytes', () => {
  it('cuts a 100 KB output to 16 KiB ending with the notice, and keeps the whole output in the audit', async () => {
    const g = await gate();
    const output = bigOutput(100_000);
    const result = await g.executor.call({ tool: 'big_output', arguments: { bytes: 100_000 } });

    expect(result.ok).toBe(true);
    expect(result.meta.truncated).toBe(true);
    expect(typeof result.data).toBe('string');
    const data = result.data as string;
    expect(Buffer.byteLength(data, 'utf8')).toBeLessThanOrEqual(CAP);
    expect(data.endsWith(notice(output))).toBe(true);
    // What comes before the notice is the head of the canonical output.
    expect(canonicalize(output).startsWith(data.slice(0, data.lastIndexOf('\n')))).toBe(true);

    const completed = g.audit.forCall(result.meta.callId).find((record) => record.kind === 'completed')!;
    expect(completed.payload).toMatchObject({ truncated: true, bytes: Buffer.byteLength(canonicalize(output), 'utf8'), output });
    expect(g.audit.verify().ok).toBe(true);
  });

  it('leaves an output under the cap untouched, with no truncated mark', async () => {
    const g = await gate();
    const result = await g.executor.call({ tool: 'big_output', arguments: { bytes: 2_000 } });
    expect(result.ok).toBe(true);
    expect(result.data).toEqual(bigOutput(2_000));
    expect(result.meta).not.toHaveProperty('truncated');
    const completed = g.audit.forCall(result.meta.callId).find((record) => record.kind === 'completed')!;
    expect(completed.payload).not.toHaveProperty('truncated');
  });

  it.each(['€', '😀', 'añ'])('never splits a multi-byte character (%s) at the cut', async (unit) => {
    const g = await gate();
    const output = bigOutput(60_001, unit);
    const result = await g.executor.call({ tool: 'big_output', arguments: { bytes: 60_001, unit } });
    expect(result.meta.truncated).toBe(true);
    const data = result.data as string;
    expect(data).not.toContain('\uFFFD');
    expect(Buffer.byteLength(data, 'utf8')).toBeLessThanOrEqual(CAP);
    expect(data.endsWith(notice(output))).toBe(true);
    // The head is whole characters: re-encoding it gives the same text.
    const head = data.slice(0, data.lastIndexOf('\n'));
    expect(Buffer.from(head, 'utf8').toString('utf8')).toBe(head);
    expect(canonicalize(output).startsWith(head)).toBe(true);
  });

  it('cuts a 1 MB error message to at most maxOutputBytes', async () => {
    const g = await gate();
    const result = await g.executor.call({ tool: 'fail_big', arguments: { bytes: 1_000_000 } });
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe('ERUNTIME');
    expect(Buffer.byteLength(result.error!.message, 'utf8')).toBeLessThanOrEqual(CAP);
    expect(result.error!.message.startsWith('eeee')).toBe(true);
  });

  it('an MCP agent receives text ending with the notice', async () => {
    const dirs = makeTempDirs();
    const running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, poolSize: 1, toolModules: [OUTPUT_TOOLS] });
    served = { running, dirs };
    served.client = await connectMcp(running.mcpUrl, readToken(dirs.home));

    // As an agent does: list the tools first. No output schema is promised, since a cut output is text.
    const listed = await served.client.listTools();
    expect(listed.tools.find((tool) => tool.name === 'big_output')?.outputSchema).toBeUndefined();
    const result = await served.client.callTool({ name: 'big_output', arguments: { bytes: 100_000 } });
    expect(result.isError).toBe(false);
    const text = textOf(result);
    expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(CAP);
    expect(text.endsWith(notice(bigOutput(100_000)))).toBe(true);

    const small = await served.client.callTool({ name: 'big_output', arguments: { bytes: 100 } });
    expect(JSON.parse(textOf(small))).toEqual(bigOutput(100));
  });

  it('an MCP agent reading a 100 KB file with the built-in read_file receives text ending with the notice', async () => {
    const dirs = makeTempDirs();
    writeFileSync(join(dirs.workspace, 'big.txt'), 'line of text\n'.repeat(8_000));
    const running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, poolSize: 1 });
    served = { running, dirs };
    served.client = await connectMcp(running.mcpUrl, readToken(dirs.home));
    await served.client.listTools();

    const result = await served.client.callTool({ name: 'read_file', arguments: { path: 'big.txt' } });
    expect(result.isError).toBe(false);
    expect(textOf(result)).toMatch(/\[output truncated — original size: [\d,]+ bytes\]$/);
  });
});
