// What the gate adds to a tool call: an auto-allowed echo through a real gate's executor (validate,
// policy, audit, sandboxed tool process) beside a bare child_process IPC round trip, in one run.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGate, type Gate } from '../main/gate/createGate';
import { toolgateRoot } from '../main/state/paths';
import { timeSequential, type BenchSection } from './benchResult';

const TEXT = 'hello from the bench';

/** A forked Node process that echoes each IPC message; `roundTrip` sends one and awaits the answer. */
async function bareEcho(): Promise<{ child: ChildProcess; roundTrip(message: unknown): Promise<unknown> }> {
  const child = fork(join(toolgateRoot(), 'bench/fixtures/ipcEcho.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let pending: ((message: unknown) => void) | undefined;
  child.on('message', (message) => {
    const resolve = pending;
    pending = undefined;
    resolve?.(message);
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  return {
    child,
    roundTrip: (message) =>
      new Promise((resolve) => {
        pending = resolve;
        child.send(message as object);
      }),
  };
}

async function gateEcho(gate: Gate): Promise<void> {
  const result = await gate.executor.call({ tool: 'echo', arguments: { text: TEXT }, source: 'test' });
  if (!result.ok) throw new Error(`echo through the gate failed: ${JSON.stringify(result.error)}`);
}

/** Times `calls` echoes each way, alternating in blocks of `block` so both see the same load. */
export async function measureGateOverhead(calls: number, block: number, warmup: number): Promise<BenchSection> {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-bench-gate-'));
  mkdirSync(join(root, 'workspace'));
  const gate = await createGate({ home: join(root, 'home'), workspace: join(root, 'workspace') });
  const bare = await bareEcho();
  try {
    const bareRoundTrip = async () => {
      const answer = (await bare.roundTrip({ text: TEXT })) as { text?: string };
      if (answer.text !== TEXT) throw new Error('the bare IPC echo answered wrongly');
    };
    await timeSequential(warmup, () => gateEcho(gate));
    await timeSequential(warmup, bareRoundTrip);
    const gateSamples: number[] = [];
    const bareSamples: number[] = [];
    for (let done = 0; done < calls; done += block) {
      await timeSequential(Math.min(block, calls - done), () => gateEcho(gate), gateSamples);
      await timeSequential(Math.min(block, calls - done), bareRoundTrip, bareSamples);
    }
    const gateLabel = 'gate.executor.call echo (auto-allowed)';
    const bareLabel = 'bare child_process.fork IPC round trip';
    const sandbox = gate.sandbox.kind === 'bubblewrap' ? `${gate.sandbox.version}` : `no sandbox (${gate.sandbox.reason})`;
    return {
      title: 'Auto-allowed call through the gate vs a bare IPC round trip (same run, alternated in blocks)',
      rows: [
        { label: gateLabel, samples: gateSamples },
        { label: bareLabel, samples: bareSamples },
      ],
      notes: [`gate: createGate defaults (pool of 2, audit in SQLite, ${sandbox}); ${calls} calls each in blocks of ${block}`],
      differences: [[gateLabel, bareLabel]],
    };
  } finally {
    bare.child.kill();
    await gate.close();
    rmSync(root, { recursive: true, force: true });
  }
}
