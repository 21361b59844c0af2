// What a pure WASM tool costs beside the built-in echo: text_stats (the sample AssemblyScript tool,
// fuel-instrumented, a fresh instance per call) and echo through the same real gate's executor, in
// one run, alternated in blocks so both see the same load.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGate, type Gate } from '../main/gate/createGate';
import { toolgateRoot } from '../main/state/paths';
import { timeSequential, type BenchSection } from './benchResult';
import { summarize } from './stats.mjs';

const TEXT = 'hello from the bench: one line, a few words';

async function call(gate: Gate, tool: string): Promise<void> {
  const result = await gate.executor.call({ tool, arguments: { text: TEXT }, source: 'test' });
  if (!result.ok) throw new Error(`${tool} through the gate failed: ${JSON.stringify(result.error)}`);
}

/** Times `calls` text_stats calls and as many echoes through one gate, in blocks of `block`. */
export async function measureWasmTool(calls: number, block: number, warmup: number): Promise<BenchSection> {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-bench-wasm-'));
  mkdirSync(join(root, 'workspace'));
  const manifest = join(toolgateRoot(), 'out/tools/wasm/text_stats/manifest.json');
  const gate = await createGate({ home: join(root, 'home'), workspace: join(root, 'workspace'), toolModules: [manifest] });
  try {
    // The warm-up includes each tool process's one instrumentation and compile of the module.
    await timeSequential(warmup, () => call(gate, 'text_stats'));
    await timeSequential(warmup, () => call(gate, 'echo'));
    const wasmSamples: number[] = [];
    const echoSamples: number[] = [];
    for (let done = 0; done < calls; done += block) {
      const count = Math.min(block, calls - done);
      await timeSequential(count, () => call(gate, 'text_stats'), wasmSamples);
      await timeSequential(count, () => call(gate, 'echo'), echoSamples);
    }
    const wasm = summarize(wasmSamples);
    const echo = summarize(echoSamples);
    const sandbox = gate.sandbox.kind === 'bubblewrap' ? `bubblewrap ${gate.sandbox.version}` : `no sandbox (${gate.sandbox.reason})`;
    return {
      title: 'A pure WASM tool call beside the built-in echo (same gate, same run, alternated in blocks)',
      rows: [
        { label: 'gate.executor.call text_stats (WASM, pure)', samples: wasmSamples },
        { label: 'gate.executor.call echo (built-in)', samples: echoSamples },
      ],
      notes: [
        `gate: createGate defaults (pool of 2, audit in SQLite, ${sandbox}); ${calls} calls each in blocks of ${block}`,
        `WASM − echo at p50: ${(wasm.p50 - echo.p50).toFixed(3)} ms (a fresh instance per call, fuel counted at every function entry, exit and loop iteration)`,
      ],
    };
  } finally {
    await gate.close();
    rmSync(root, { recursive: true, force: true });
  }
}
