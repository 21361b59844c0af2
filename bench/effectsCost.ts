// What recording a call's effects (so a person can undo it) adds to the call, through real gates built
// in this process (createGate, temp home, a workspace of BENCH_EFFECTS_FILES files, default 5,000): a
// write_file and a shell_exec that writes one file, each beside the same call on a gate that records
// nothing, alternated one by one; and undoing a shell_exec that changed 100 files.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGate, type Gate } from '../main/gate/createGate';
import { percentile, type BenchSection } from './benchResult';

/** What recording may add to a call at p50 (ms): a write should not feel it, a shell command barely. */
const WRITE_FILE_LIMIT_MS = 5;
const SHELL_LIMIT_MS = 20;
/** Undo of a call that changed 100 files (ms). */
const UNDO_LIMIT_MS = 1000;

/** A workspace of `files` small text files in folders of 100. */
function makeWorkspace(root: string, files: number): string {
  const workspace = join(root, 'workspace');
  for (let at = 0; at < files; at++) {
    const folder = join(workspace, `src-${Math.floor(at / 100)}`);
    if (at % 100 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `file-${at}.ts`), `export const value${at} = ${at};\n`.repeat(8));
  }
  return workspace;
}

async function call(gate: Gate, tool: string, args: Record<string, unknown>): Promise<number> {
  const started = performance.now();
  const answer = await gate.executor.call({ tool, arguments: args, source: 'test' });
  if (!answer.ok) throw new Error(`${tool} failed in the effects bench: ${JSON.stringify(answer.error)}`);
  return performance.now() - started;
}

/** Times `calls` writes and shell commands on a recording gate and on one that records nothing, one by one, then `undos` undos of 100 files. */
export async function measureEffectsCost(files: number, calls: number, undos: number): Promise<BenchSection> {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-bench-effects-'));
  const workspace = makeWorkspace(root, files);
  const rules = ['write_file', 'shell_exec'];
  const recording = await createGate({ home: join(root, 'home-recording'), workspace, policyRules: rules });
  const plain = await createGate({ home: join(root, 'home-plain'), workspace, policyRules: rules, recordEffects: false });
  try {
    const samples = { write: [[], []] as number[][], shell: [[], []] as number[][], undo: [] as number[] };
    // The first shell call of a recording gate keeps every file of the workspace once (the store is empty): untimed.
    for (const [index, gate] of [recording, plain].entries()) {
      await call(gate, 'write_file', { path: `warm-${index}.txt`, content: 'warm\n' });
      await call(gate, 'shell_exec', { command: `echo warm > warm-shell-${index}.txt` });
    }
    for (let i = 0; i < calls; i++) {
      for (const [index, gate] of [recording, plain].entries()) {
        samples.write[index]!.push(await call(gate, 'write_file', { path: `written-${index}-${i}.txt`, content: `line ${i}\n` }));
        samples.shell[index]!.push(await call(gate, 'shell_exec', { command: `echo ${i} > shell-${index}-${i}.txt` }));
      }
    }
    for (let i = 0; i < undos; i++) {
      const answer = await recording.executor.call({ tool: 'shell_exec', arguments: { command: `mkdir many-${i} && cd many-${i} && seq 1 100 | split -l 1 - part-` }, source: 'test' });
      if (!answer.ok) throw new Error(`the 100-file shell_exec failed: ${JSON.stringify(answer.error)}`);
      const callId = answer.meta.callId;
      const started = performance.now();
      const report = await recording.backend.handlers.undoCall({ callId, rewind: false, dryRun: false, choices: {} });
      samples.undo.push(performance.now() - started);
      if (report.outcome !== 'undone') throw new Error(`undo of 100 files was ${report.outcome}: ${report.reason}`);
    }
    const median = (list: number[]) => percentile(list, 50);
    const added = (pair: number[][]) => median(pair[0]!) - median(pair[1]!);
    return {
      title: `Undo's effects: what recording adds to a call in a workspace of ${files.toLocaleString('en')} files (real gates, ${calls} calls each, alternated one by one), and undoing 100 files`,
      rows: [
        { label: 'write_file, effects recorded', samples: samples.write[0]! },
        { label: 'write_file, nothing recorded (baseline)', samples: samples.write[1]! },
        { label: 'shell_exec writing one file, effects recorded', samples: samples.shell[0]! },
        { label: 'shell_exec, nothing recorded (baseline)', samples: samples.shell[1]! },
        { label: 'undo of a shell_exec that wrote 100 files', samples: samples.undo },
      ],
      notes: [
        'write_file records its one path; shell_exec scans the whole workspace before and after: after the first scan, a stat of only what the kernel\'s watches say changed, a hash of files whose stat changed',
        `p50 added by recording: write_file ${added(samples.write).toFixed(2)} ms, shell_exec ${added(samples.shell).toFixed(2)} ms`,
      ],
      targets: [
        { name: 'effects recording added to write_file, p50', measured: median(samples.write[0]!), baseline: median(samples.write[1]!), unit: 'ms', holdsWhen: 'at-most', limit: WRITE_FILE_LIMIT_MS, difference: true },
        { name: `effects recording added to shell_exec in ${files.toLocaleString('en')} files, p50`, measured: median(samples.shell[0]!), baseline: median(samples.shell[1]!), unit: 'ms', holdsWhen: 'at-most', limit: SHELL_LIMIT_MS, difference: true },
        { name: 'undo of a call that changed 100 files, p50', measured: median(samples.undo), unit: 'ms', holdsWhen: 'at-most', limit: UNDO_LIMIT_MS },
      ],
    };
  } finally {
    await Promise.all([recording.close(), plain.close()]);
    rmSync(root, { recursive: true, force: true });
  }
}
