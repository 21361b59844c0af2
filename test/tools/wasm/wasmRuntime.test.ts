/**
 * The WASM runtime in process: binaryen's instrumentation counts fuel the same way every time and
 * ends a call that runs out with EQUOTA, the memory cap is both the module's maximum and a hook on
 * every memory.grow, and a host call's refusal ends the call.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import binaryen from 'binaryen';
import { afterAll, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../../main/registry/defineTool';
import { WasmFileCalls } from '../../../main/tools/sources/wasm/hostFiles';
import { WasmNetCalls } from '../../../main/tools/sources/wasm/hostNet';
import { instrumentModule, toolFeatures } from '../../../main/tools/sources/wasm/instrumentModule';
import { runWasmCall } from '../../../main/tools/sources/wasm/wasmCall';
import { wasmApi } from '../../../main/tools/sources/wasm/webAssemblyApi';
import { GROW_WAT, SAMPLE_TOOLS, SPIN_WAT, readingWat, watToWasm } from './wasmFixtures';

const workspace = mkdtempSync(join(tmpdir(), 'toolgate-wasm-runtime-'));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

const context: ToolContext = { workspace, dryRun: false, callId: 'test' };
const noNet = new WasmNetCalls({ tool: 'test', urlArguments: [], input: {} });

/** Counts to the number its input's length says, 1000 times over: a finite loop with a known path. */
const COUNT_WAT = `(module
  (memory (export "memory") 1)
  (data (i32.const 0) "{\\"ok\\":true}")
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))
  (func $step (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
  (func (export "run") (param i32 i32) (result i64) (local $i i32)
    (loop $again
      (local.set $i (call $step (local.get $i)))
      (br_if $again (i32.lt_u (local.get $i) (i32.mul (local.get 1) (i32.const 1000)))))
    (i64.const 11)))`;

async function run(wat: string, options: { fuel?: number; memoryPages?: number; input?: unknown } = {}) {
  const fuel = options.fuel ?? 1_000_000;
  const memoryPages = options.memoryPages ?? 4;
  const module = new wasmApi.Module(await instrumentModule(watToWasm(wat), { fuel, memoryPages, label: 'test module' }));
  const files = new WasmFileCalls({ tool: 'test', pathArguments: ['path'], input: options.input ?? {}, context });
  return runWasmCall({ module, label: 'test module', fuel, memoryPages, files, net: noNet }, options.input ?? {});
}

describe('fuel', () => {
  it('counts the same fuel for the same input every time, instrumented anew or not, and more for a longer run', async () => {
    const first = await run(COUNT_WAT, { input: { a: 1 } });
    const second = await run(COUNT_WAT, { input: { a: 1 } });
    const longer = await run(COUNT_WAT, { input: { a: 12345 } });
    expect(first.output).toEqual({ ok: true });
    expect(second.usage.fuelUsed).toBe(first.usage.fuelUsed);
    expect(longer.usage.fuelUsed).toBeGreaterThan(first.usage.fuelUsed);
  });

  it('counts the same fuel for the sample text_stats (AssemblyScript, allocating) on every run of the same input', async () => {
    const bytes = new Uint8Array(readFileSync(join(dirname(SAMPLE_TOOLS.textStats), 'text_stats.wasm')));
    const text = 'one two\nthree é 🙂\n';
    const runs = [];
    for (let round = 0; round < 2; round++) {
      const module = new wasmApi.Module(await instrumentModule(bytes, { fuel: 50_000_000, memoryPages: 256, label: 'text_stats' }));
      const files = new WasmFileCalls({ tool: 'text_stats', pathArguments: [], input: {}, context });
      runs.push(runWasmCall({ module, label: 'text_stats', fuel: 50_000_000, memoryPages: 256, files, net: noNet }, { text }));
    }
    expect(runs[0]!.output).toEqual({ lines: 2, words: 5, characters: [...text].length, bytes: Buffer.byteLength(text) });
    expect(runs[1]!.usage).toEqual(runs[0]!.usage);
    expect(runs[0]!.usage.fuelUsed).toBeGreaterThan(0);
  });

  it('serves the sample text_stats a text as long as its schema allows within the budgets its manifest sets', async () => {
    const manifest = JSON.parse(readFileSync(SAMPLE_TOOLS.textStats, 'utf8')) as { source: { fuel: number; memoryPages: number }; inputSchema: { properties: { text: { maxLength: number } } } };
    const { fuel, memoryPages } = manifest.source;
    const longest = manifest.inputSchema.properties.text.maxLength;
    const line = 'a "quoted" word\tand é\n';
    const text = line.repeat(Math.floor(longest / line.length));
    const bytes = new Uint8Array(readFileSync(join(dirname(SAMPLE_TOOLS.textStats), 'text_stats.wasm')));
    const module = new wasmApi.Module(await instrumentModule(bytes, { fuel, memoryPages, label: 'text_stats' }));
    const files = new WasmFileCalls({ tool: 'text_stats', pathArguments: [], input: {}, context });
    const { output } = runWasmCall({ module, label: 'text_stats', fuel, memoryPages, files, net: noNet }, { text });
    expect(output).toMatchObject({ lines: text.split('\n').length - 1, characters: text.length, bytes: Buffer.byteLength(text) });
  });

  it('ends an endless loop with EQUOTA naming the fuel budget', async () => {
    await expect(run(SPIN_WAT, { fuel: 5000, input: { spin: true } })).rejects.toMatchObject({
      code: 'EQUOTA',
      message: expect.stringContaining('ran out of fuel: it used its whole budget of 5000 units'),
      details: { budget: 'fuel', fuel: 5000 },
    });
  });

  it('ends a finite run just past its budget with EQUOTA, and lets it finish with exactly the fuel it uses', async () => {
    const { usage } = await run(COUNT_WAT, { input: { a: 1 } });
    await expect(run(COUNT_WAT, { fuel: usage.fuelUsed - 1, input: { a: 1 } })).rejects.toMatchObject({ code: 'EQUOTA' });
    expect((await run(COUNT_WAT, { fuel: usage.fuelUsed, input: { a: 1 } })).output).toEqual({ ok: true });
  });
});

describe('memory cap', () => {
  it('ends a growth past the cap with EQUOTA naming memoryPages, and lets one within it through', async () => {
    expect((await run(GROW_WAT, { memoryPages: 4 })).usage.pages).toBe(2);
    await expect(run(GROW_WAT, { memoryPages: 4, input: { spin: true } })).rejects.toMatchObject({
      code: 'EQUOTA',
      details: { budget: 'memoryPages', memoryPages: 4, asked: 101 },
    });
  });

  it("lowers the module's own memory maximum to the cap", async () => {
    const instrumented = binaryen.readBinary(await instrumentModule(watToWasm(GROW_WAT.replace('(memory (export "memory") 1)', '(memory (export "memory") 1 65536)')), { fuel: 100, memoryPages: 7, label: 'test' }));
    instrumented.setFeatures(toolFeatures(binaryen));
    expect(instrumented.getMemoryInfo().max).toBe(7);
    instrumented.dispose();
  });

  it('refuses a module whose memory starts above the cap', async () => {
    await expect(instrumentModule(watToWasm(GROW_WAT.replace('(memory (export "memory") 1)', '(memory (export "memory") 9)')), { fuel: 100, memoryPages: 8, label: 'big' })).rejects.toThrow(
      'big starts with 9 pages of memory, more than its cap of 8',
    );
  });
});

describe('host calls', () => {
  it('ends the call with the refusal of a read that leaves the workspace', async () => {
    await expect(run(readingWat('../escape.txt'), { input: { path: 'a.txt' } })).rejects.toMatchObject({
      code: 'EPERMISSION',
      message: expect.stringContaining('"../escape.txt" is outside the workspace'),
    });
  });
});
