// Tool processes on their own, through the real host and pool, plain and in bubblewrap:
// cold start, needed → ready with and without spare processes, warm round trips of 1 KB and 1 MB
// (and the 1 MiB's pieces alone: framing, canonical form and hash, the executor's output step), and
// how long a call past its deadline takes to die.
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { fastBlake3Hex, loadFastBlake3 } from '../main/audit/fastBlake3';
import { normalizeOutput } from '../main/executor/steps/normalizeOutput';
import { capOutput } from '../main/executor/steps/truncateOutput';
import { createChildProcessHost } from '../main/hosts/childProcessHost';
import { createFrameReader, encodeFrame } from '../main/hosts/frames';
import type { SandboxProfile } from '../main/hosts/sandbox';
import type { RegisteredTool } from '../main/registry/registry';
import { echoTool } from '../main/tools/echo';
import { canonicalize } from '../shared/canonicalJson';
import { detectSandbox } from '../main/hosts/sandbox';
import { sandboxIsolation } from '../main/hosts/sandboxIsolation';
import { toolEnvironment } from '../main/hosts/toolEnvironment';
import { READ_ONLY_PROFILE } from '../main/hosts/poolOptions';
import type { Isolation, RunOutcome } from '../main/hosts/toolCall';
import { ToolProcessPool } from '../main/hosts/toolProcessPool';
import { builtAssets, runtimeFolder, toolgateRoot } from '../main/state/paths';
import { percentile, timeSequential, type BenchSection, type BenchTarget } from './benchResult';

/** How many samples each measurement takes. */
export interface ToolProcessCounts {
  coldStarts: number;
  smallCalls: number;
  largeCalls: number;
  deadlines: number;
  /** Calls per profile timed for needed → ready, with spares and without. */
  spareCalls: number;
}

/** The promises: a warm 1 MiB echo and a process ready after it is needed. */
const LARGE_ECHO_LIMIT_MS = 5;
const NEEDED_TO_READY_LIMIT_MS = 100;
/** Time between calls in the needed → ready rows: what a person or agent leaves between calls, room for a spare to start. */
const BETWEEN_CALLS_MS = 700;
const MIB = 1024 * 1024;

const SLOW_TOOLS = join(toolgateRoot(), 'bench/fixtures/slowTools.mjs');
const DEADLINE_MS = 100;
/** The pool's default grace between SIGTERM and SIGKILL, which the gate uses too. */
const GRACE_MS = 500;

interface Variant {
  name: 'plain' | 'sandboxed';
  isolation: Isolation;
}

/** The plain variant, and the sandboxed one when bubblewrap works here; how each profile is isolated. */
function variants(workspace: string): { variants: Variant[]; notes: string[]; isolate: (profile: SandboxProfile) => Isolation } {
  const plain: Variant = { name: 'plain', isolation: { key: 'bare' } };
  const sandbox = detectSandbox('require');
  // As the gate's: the checkout and the Node that runs the tool process, either of which may live under /tmp (the sandbox's own).
  const isolate = sandboxIsolation(sandbox, { workspace, readable: [toolgateRoot(), runtimeFolder()], hidden: [], granted: () => false });
  if (sandbox.kind === 'none') return { variants: [plain], notes: [`sandboxed rows skipped: ${sandbox.reason}`], isolate };
  return {
    variants: [plain, { name: 'sandboxed', isolation: isolate(READ_ONLY_PROFILE) }],
    notes: [`sandboxed = ${sandbox.version}, read-only profile (no network, workspace read-only)`],
    isolate,
  };
}

/** Spawn → the process's `ready` message, then closes it. */
async function coldStart(isolation: Isolation): Promise<number> {
  const started = performance.now();
  const child = createChildProcessHost({ entry: builtAssets().toolProcess, env: toolEnvironment(), label: 'bench-cold', wrapper: isolation.wrapper });
  try {
    await new Promise<void>((resolve, reject) => {
      child.onMessage((message) => {
        if ((message as { type?: unknown } | null)?.type === 'ready') resolve();
      });
      child.onExit((exit) => reject(new Error(`the tool process ended before it was ready: ${JSON.stringify(exit)}`)));
    });
    return performance.now() - started;
  } finally {
    await child.close();
  }
}

function newPool(isolate: (profile: SandboxProfile) => Isolation, spares = 0): ToolProcessPool {
  return new ToolProcessPool({
    factory: createChildProcessHost,
    entry: builtAssets().toolProcess,
    env: toolEnvironment(),
    size: 1,
    maxQueue: 4,
    terminateGraceMs: GRACE_MS,
    isolate,
    ...(spares > 0 ? { spares: { spares, idleMs: 60_000 } } : {}),
  });
}

let callCount = 0;
function request(workspace: string, tool: string, module: string, input: unknown) {
  return { callId: `bench-${++callCount}`, tool, module, input, context: { workspace, dryRun: false } };
}

async function echo(pool: ToolProcessPool, workspace: string, text: string, profile?: SandboxProfile): Promise<void> {
  const outcome = await pool.run(request(workspace, 'echo', 'builtin', { text }), { timeoutMs: 30_000, maxMemoryMb: 2048 }, profile);
  if (!outcome.ok || (outcome.data as { text?: string }).text?.length !== text.length) {
    throw new Error(`echo through the pool failed: ${JSON.stringify(outcome.ok ? 'wrong length' : outcome.error)}`);
  }
}

/** Warm echo round trips of one size, alternating the variants in blocks so both see the same load. */
async function roundTrips(pools: [Variant, ToolProcessPool][], workspace: string, bytes: number, count: number): Promise<number[][]> {
  const text = 'x'.repeat(bytes);
  const block = Math.max(1, Math.ceil(count / 4));
  const samples = pools.map((): number[] => []);
  for (const [, pool] of pools) await timeSequential(Math.max(3, Math.ceil(count / 10)), () => echo(pool, workspace, text));
  for (let done = 0; done < count; done += block) {
    for (const [i, [, pool]] of pools.entries()) {
      await timeSequential(Math.min(block, count - done), () => echo(pool, workspace, text), samples[i]);
    }
  }
  return samples;
}

/** The profiles calls of the built-in tools run in: read-only, writing, network, and a single-use one for process spawners. */
const PROFILES: [string, SandboxProfile][] = [
  ['read-only', READ_ONLY_PROFILE],
  ['write', { writeWorkspace: true, network: false, spawnsProcesses: false }],
  ['network', { writeWorkspace: false, network: true, spawnsProcesses: false }],
  ['single-use (spawns processes)', { writeWorkspace: false, network: false, spawnsProcesses: true }],
];

/**
 * Needed → ready: calls of each profile in turn, a pause between them, each timed from asking the
 * pool to its answer (a 2-byte echo on top). Without spares a pool of one starts each profile's
 * process when its call comes (the baseline); with them, the process is started ahead.
 */
async function neededToReady(isolate: (profile: SandboxProfile) => Isolation, workspace: string, calls: number): Promise<{ cold: number[][]; spare: number[][] }> {
  const cold = PROFILES.map((): number[] => []);
  const spare = PROFILES.map((): number[] => []);
  const withSpares = newPool(isolate, PROFILES.length);
  const without = newPool(isolate);
  try {
    // One unmeasured round: the spares' pool learns which profiles calls use.
    for (const [, profile] of PROFILES) await echo(withSpares, workspace, 'hi', profile);
    for (let i = 0; i < calls; i++) {
      for (const [p, [, profile]] of PROFILES.entries()) {
        for (const [pool, samples] of [[without, cold[p]!], [withSpares, spare[p]!]] as const) {
          await new Promise((resolve) => setTimeout(resolve, BETWEEN_CALLS_MS));
          await timeSequential(1, () => echo(pool, workspace, 'hi', profile), samples);
        }
      }
    }
  } finally {
    await Promise.all([withSpares.close(), without.close()]);
  }
  return { cold, spare };
}

/**
 * The floor under a 1 MiB call: the same bytes sent to a bare Node process on fd 3, as the tool
 * processes' channel is, and read back whole; no JSON, no strings, no pool.
 */
async function byteRoundTrips(count: number): Promise<number[]> {
  const child = spawn(process.execPath, [join(toolgateRoot(), 'bench/fixtures/byteEcho.mjs')], { stdio: ['ignore', 'inherit', 'inherit', 'pipe'] });
  const channel = child.stdio[3] as Duplex;
  const block = Buffer.alloc(4 + MIB, 'x');
  block.writeUInt32BE(MIB, 0);
  let received = 0;
  let answered: (() => void) | undefined;
  channel.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received < block.length) return;
    received = 0;
    answered?.();
  });
  const once = () => new Promise<void>((resolve) => {
    answered = resolve;
    channel.write(block);
  });
  const samples: number[] = [];
  try {
    await timeSequential(5, once);
    await timeSequential(count, once, samples);
  } finally {
    channel.end();
    child.kill();
  }
  return samples;
}

/** The 1 MiB echo's pieces, each alone: framing both ways, canonical form, hash, the executor's output step. */
async function largePieces(count: number): Promise<{ label: string; samples: number[] }[]> {
  await loadFastBlake3();
  const text = 'x'.repeat(MIB);
  const message = { type: 'run', callId: 'bench', tool: 'echo', module: 'builtin', input: { text }, context: { workspace: '/', dryRun: false } };
  const frame = encodeFrame(message);
  const output = { text };
  const canonical = canonicalize(output);
  const entry: RegisteredTool = { tool: echoTool, module: 'builtin' };
  const decode = () => {
    let decoded: unknown;
    const reader = createFrameReader(64 * MIB, { onMessage: (m) => (decoded = m), onViolation: (v) => { throw new Error(`frame refused: ${v.kind}`); } });
    // As a pipe delivers it: 64 KiB at a time.
    for (let at = 0; at < frame.length; at += 64 * 1024) reader(frame.subarray(at, at + 64 * 1024));
    if (!decoded) throw new Error('the frame was not decoded');
  };
  const pieces: [string, () => unknown][] = [
    ['1 MiB request: encodeFrame', () => encodeFrame(message)],
    ['1 MiB request: decode from 64 KiB chunks', decode],
    ['1 MiB output: canonicalize', () => canonicalize(output)],
    ['1 MiB output: BLAKE3 (WebAssembly) of canonical', () => fastBlake3Hex(canonical)],
    ['1 MiB output: executor output step (check+canon+hash+cap)', () => {
      const normalized = normalizeOutput(entry, output);
      if ('step' in normalized) throw new Error('the output step refused the echo');
      return capOutput(normalized.data, normalized.canonical, 4 * MIB);
    }],
  ];
  const rows = pieces.map(([label]) => ({ label, samples: [] as number[] }));
  for (const [, once] of pieces) await timeSequential(3, async () => once());
  for (let i = 0; i < count; i++) {
    for (const [p, [, once]] of pieces.entries()) await timeSequential(1, async () => once(), rows[p]!.samples);
  }
  return rows;
}

/**
 * Calls a tool that outlives a short deadline; returns the pool's deadline-to-dead and our own
 * deadline → settled (call start + timeout → the promise settling), each in ms.
 */
async function pastDeadline(pool: ToolProcessPool, workspace: string, tool: string): Promise<{ reported: number; observed: number }> {
  // A warm process that has loaded the module already, so the deadline starts as the call does.
  await pool.health({ tool, module: SLOW_TOOLS, workspace }, 10_000);
  const started = performance.now();
  const outcome: RunOutcome = await pool.run(request(workspace, tool, SLOW_TOOLS, {}), { timeoutMs: DEADLINE_MS, maxMemoryMb: 1024 });
  const observed = performance.now() - started - DEADLINE_MS;
  if (outcome.ok || outcome.error.code !== 'ETIMEOUT') throw new Error(`${tool} did not time out: ${JSON.stringify(outcome)}`);
  const reported = (outcome.error.details as { deadlineToDeadMs?: number } | undefined)?.deadlineToDeadMs;
  if (typeof reported !== 'number') throw new Error(`${tool}'s ETIMEOUT has no deadlineToDeadMs: ${JSON.stringify(outcome.error)}`);
  return { reported, observed };
}

/** Needed → ready p50 over all profiles with spares, held to the limit; the cold start's p50 named beside it. */
function neededTargets(ready: { cold: number[][]; spare: number[][] }): BenchTarget[] {
  const cold = percentile(ready.cold.flat(), 50);
  return [
    {
      name: `tool process needed → ready with spares, p50 (without: ${cold.toFixed(0)} ms)`,
      measured: percentile(ready.spare.flat(), 50),
      unit: 'ms',
      holdsWhen: 'at-most',
      limit: NEEDED_TO_READY_LIMIT_MS,
    },
  ];
}

/** Runs the tool-process measurements. */
export async function measureToolProcesses(counts: ToolProcessCounts): Promise<BenchSection[]> {
  const folder = mkdtempSync(join(tmpdir(), 'toolgate-bench-tools-'));
  const workspace = realpathSync(folder);
  const { variants: all, notes, isolate } = variants(workspace);
  const pools: [Variant, ToolProcessPool][] = [];
  try {
    // 1. Cold start: alternated one by one, after one unmeasured start each (file cache).
    const cold = all.map((): number[] => []);
    for (const variant of all) await coldStart(variant.isolation);
    for (let i = 0; i < counts.coldStarts; i++) {
      for (const [v, variant] of all.entries()) cold[v]!.push(await coldStart(variant.isolation));
    }

    // 2. Needed → ready per profile, with spares against without (sandboxed when bubblewrap works).
    const ready = await neededToReady(all.length > 1 ? isolate : () => ({ key: 'bare' }), workspace, counts.spareCalls);

    // 3. Warm round trips through ToolProcessPool.run, a pool of one per variant; the 1 MiB's pieces alone.
    for (const variant of all) pools.push([variant, newPool(() => variant.isolation)]);
    const small = await roundTrips(pools, workspace, 1024, counts.smallCalls);
    const large = await roundTrips(pools, workspace, MIB, counts.largeCalls);
    const pieces = await largePieces(counts.largeCalls);
    const floor = await byteRoundTrips(counts.largeCalls);

    // 3. Deadline → dead, SIGTERM obeyed and ignored.
    const deadline: Record<string, { reported: number[]; observed: number[] }> = {};
    for (let i = 0; i < counts.deadlines; i++) {
      for (const [variant, pool] of pools) {
        for (const tool of ['obey_sigterm', 'ignore_sigterm']) {
          const key = `${tool} ${variant.name}`;
          const { reported, observed } = await pastDeadline(pool, workspace, tool);
          deadline[key] ??= { reported: [], observed: [] };
          deadline[key].reported.push(reported);
          deadline[key].observed.push(observed);
        }
      }
    }

    return [
      {
        title: `Tool process cold start: spawn → 'ready' (createChildProcessHost)`,
        rows: all.map((variant, v) => ({ label: `cold start, ${variant.name}`, samples: cold[v]! })),
        notes,
      },
      {
        title: `Needed → ready: a call of each profile, ${BETWEEN_CALLS_MS} ms apart, from asking the pool to its answer (2-byte echo)`,
        rows: PROFILES.flatMap(([name], p) => [
          { label: `${name}, no spare (pool of 1)`, samples: ready.cold[p]! },
          { label: `${name}, with spares`, samples: ready.spare[p]! },
        ]),
        notes: [
          `${all.length > 1 ? 'sandboxed (bubblewrap)' : 'plain'}; spares: one per profile in use (${PROFILES.length} here), started after one is taken or announced with expect()`,
          'without spares a pool of one ends its idle process and starts the profile asked for, as the gate did when a write followed a read',
        ],
        targets: neededTargets(ready),
      },
      {
        title: 'Warm round trip through ToolProcessPool.run (pool of 1, builtin echo)',
        rows: [
          ...pools.flatMap(([variant], v) => [
            { label: `1 KiB echo, ${variant.name}`, samples: small[v]! },
            { label: `1 MiB echo, ${variant.name}`, samples: large[v]! },
          ]),
          { label: '1 MiB of bytes to a bare process on fd 3 and back (floor)', samples: floor },
          ...pieces,
        ],
        notes: [
          'the 1 MiB rows below the round trips time each piece alone, in this process: encodeFrame is what either side pays',
          'to send, decode what either side pays to receive; the output step runs after the round trip, in the gate',
        ],
        targets: pools.map(([variant], v): BenchTarget => ({
          name: `1 MiB echo through a warm tool process, ${variant.name}, p50`,
          measured: percentile(large[v]!, 50),
          unit: 'ms',
          holdsWhen: 'at-most',
          limit: LARGE_ECHO_LIMIT_MS,
        })),
      },
      {
        title: `Deadline → dead (timeoutMs ${DEADLINE_MS}, SIGTERM then SIGKILL after ${GRACE_MS} ms)`,
        rows: Object.entries(deadline).flatMap(([key, measured]) => {
          const [tool, variant] = key.split(' ');
          const what = tool === 'obey_sigterm' ? 'obeys SIGTERM' : 'ignores SIGTERM';
          return [
            { label: `${what}, ${variant}: details.deadlineToDeadMs`, samples: measured.reported },
            { label: `${what}, ${variant}: deadline → settled`, samples: measured.observed },
          ];
        }),
        notes: [
          'deadlineToDeadMs is what the pool reports (rounded to 1 ms); deadline → settled is measured here as',
          `call start + ${DEADLINE_MS} ms → the run() promise settling (includes timer lateness)`,
        ],
      },
    ];
  } finally {
    await Promise.all(pools.map(([, pool]) => pool.close()));
    rmSync(folder, { recursive: true, force: true });
  }
}
