// Tool processes on their own, through the real host and pool, plain and in bubblewrap:
// cold start, warm round trips of 1 KB and 1 MB, and how long a call past its deadline takes to die.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChildProcessHost } from '../main/hosts/childProcessHost';
import { detectSandbox } from '../main/hosts/sandbox';
import { sandboxIsolation } from '../main/hosts/sandboxIsolation';
import { toolEnvironment } from '../main/hosts/toolEnvironment';
import { READ_ONLY_PROFILE, ToolProcessPool, type Isolation, type RunOutcome } from '../main/hosts/toolProcessPool';
import { builtAssets, toolgateRoot } from '../main/state/paths';
import { timeSequential, type BenchSection } from './benchResult';

/** How many samples each measurement takes. */
export interface ToolProcessCounts {
  coldStarts: number;
  smallCalls: number;
  largeCalls: number;
  deadlines: number;
}

const SLOW_TOOLS = join(toolgateRoot(), 'bench/fixtures/slowTools.mjs');
const DEADLINE_MS = 100;
/** The pool's default grace between SIGTERM and SIGKILL, which the gate uses too. */
const GRACE_MS = 500;

interface Variant {
  name: 'plain' | 'sandboxed';
  isolation: Isolation;
}

/** The plain variant, and the sandboxed one when bubblewrap works here. */
function variants(workspace: string): { variants: Variant[]; notes: string[] } {
  const plain: Variant = { name: 'plain', isolation: { key: 'bare' } };
  const sandbox = detectSandbox('require');
  if (sandbox.kind === 'none') return { variants: [plain], notes: [`sandboxed rows skipped: ${sandbox.reason}`] };
  const isolation = sandboxIsolation(sandbox, { workspace, readable: [toolgateRoot()], hidden: [], granted: () => false })(READ_ONLY_PROFILE);
  return {
    variants: [plain, { name: 'sandboxed', isolation }],
    notes: [`sandboxed = ${sandbox.version}, read-only profile (no network, workspace read-only)`],
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

function newPool(isolation: Isolation): ToolProcessPool {
  return new ToolProcessPool({
    factory: createChildProcessHost,
    entry: builtAssets().toolProcess,
    env: toolEnvironment(),
    size: 1,
    maxQueue: 4,
    terminateGraceMs: GRACE_MS,
    isolate: () => isolation,
  });
}

let callCount = 0;
function request(workspace: string, tool: string, module: string, input: unknown) {
  return { callId: `bench-${++callCount}`, tool, module, input, context: { workspace, dryRun: false } };
}

async function echo(pool: ToolProcessPool, workspace: string, text: string): Promise<void> {
  const outcome = await pool.run(request(workspace, 'echo', 'builtin', { text }), { timeoutMs: 30_000, maxMemoryMb: 2048 });
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

/** Runs the three tool-process measurements. */
export async function measureToolProcesses(counts: ToolProcessCounts): Promise<BenchSection[]> {
  const folder = mkdtempSync(join(tmpdir(), 'toolgate-bench-tools-'));
  const workspace = realpathSync(folder);
  const { variants: all, notes } = variants(workspace);
  const pools: [Variant, ToolProcessPool][] = [];
  try {
    // 1. Cold start: alternated one by one, after one unmeasured start each (file cache).
    const cold = all.map((): number[] => []);
    for (const variant of all) await coldStart(variant.isolation);
    for (let i = 0; i < counts.coldStarts; i++) {
      for (const [v, variant] of all.entries()) cold[v]!.push(await coldStart(variant.isolation));
    }

    // 2. Warm round trips through ToolProcessPool.run, a pool of one per variant.
    for (const variant of all) pools.push([variant, newPool(variant.isolation)]);
    const small = await roundTrips(pools, workspace, 1024, counts.smallCalls);
    const large = await roundTrips(pools, workspace, 1024 * 1024, counts.largeCalls);

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
        title: 'Warm round trip through ToolProcessPool.run (pool of 1, builtin echo)',
        rows: pools.flatMap(([variant], v) => [
          { label: `1 KiB echo, ${variant.name}`, samples: small[v]! },
          { label: `1 MiB echo, ${variant.name}`, samples: large[v]! },
        ]),
        notes: [],
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
