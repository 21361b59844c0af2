// What the gate adds to a tool call: an auto-allowed echo through a real gate's executor (admission,
// validation, policy, audit, sandboxed tool process) beside a bare child_process IPC round trip, in
// one run; and the same gate with its tool process answered in-process, to show where the time goes.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGate, type Gate } from '../main/gate/createGate';
import type { ToolProcess, ToolProcessFactory } from '../main/hosts/toolProcess';
import type { HostRequest } from '../main/hosts/protocol';
import { toolgateRoot } from '../main/state/paths';
import { timeSequential, type BenchSection } from './benchResult';
import { summarize } from './stats.mjs';

const TEXT = 'hello from the bench';

/** What the executor may add over a bare IPC round trip, at p50 (issue 13, target 1). */
const EXECUTOR_OVERHEAD_MS = 0.3;

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

/**
 * A tool "process" that lives in the gate and answers an echo at once: the pool, the executor and
 * the audit run as they do for a real one, without spawning, sandboxing or IPC.
 */
const inProcessEcho: ToolProcessFactory = () => {
  const messages = new Set<(message: unknown) => void>();
  const exits = new Set<(exit: { reason: 'killed' }) => void>();
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const listener of exits) listener({ reason: 'killed' });
  };
  const reply = (message: unknown) => queueMicrotask(() => messages.forEach((listener) => listener(message)));
  queueMicrotask(() => reply({ type: 'ready' }));
  const host: ToolProcess = {
    pid: undefined,
    send(request: HostRequest) {
      if (closed) return;
      if (request.type === 'health') reply({ type: 'health', callId: request.callId, healthy: true });
      else reply({ type: 'result', callId: request.callId, ok: true, data: { text: (request.input as { text: string }).text } });
    },
    onMessage(listener) {
      messages.add(listener);
      return () => messages.delete(listener);
    },
    onExit(listener) {
      exits.add(listener);
      return () => exits.delete(listener);
    },
    kill: () => void close(),
    terminate: async () => {
      await close();
      return 'SIGTERM';
    },
    killStrays: () => undefined,
    setMemoryLimit: () => false,
    memoryEvents: () => undefined,
    forksRefused: () => undefined,
    close,
  };
  return host;
};

async function gateEcho(gate: Gate): Promise<void> {
  const result = await gate.executor.call({ tool: 'echo', arguments: { text: TEXT }, source: 'test' });
  if (!result.ok) throw new Error(`echo through the gate failed: ${JSON.stringify(result.error)}`);
}

/** A gate in a temporary home and workspace; `close` removes both. */
async function tempGate(hostFactory?: ToolProcessFactory): Promise<{ gate: Gate; close(): Promise<void> }> {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-bench-gate-'));
  mkdirSync(join(root, 'workspace'));
  const gate = await createGate({ home: join(root, 'home'), workspace: join(root, 'workspace'), ...(hostFactory ? { hostFactory } : {}) });
  return {
    gate,
    close: async () => {
      await gate.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Times `calls` echoes each way (and through a gate with its tool process in-process), alternating in blocks of `block` so all see the same load. */
export async function measureGateOverhead(calls: number, block: number, warmup: number): Promise<BenchSection> {
  const real = await tempGate();
  const stubbed = await tempGate(inProcessEcho);
  const bare = await bareEcho();
  try {
    const bareRoundTrip = async () => {
      const answer = (await bare.roundTrip({ text: TEXT })) as { text?: string };
      if (answer.text !== TEXT) throw new Error('the bare IPC echo answered wrongly');
    };
    await timeSequential(warmup, () => gateEcho(real.gate));
    await timeSequential(warmup, () => gateEcho(stubbed.gate));
    await timeSequential(warmup, bareRoundTrip);
    const gateSamples: number[] = [];
    const stubbedSamples: number[] = [];
    const bareSamples: number[] = [];
    for (let done = 0; done < calls; done += block) {
      const count = Math.min(block, calls - done);
      await timeSequential(count, () => gateEcho(real.gate), gateSamples);
      await timeSequential(count, bareRoundTrip, bareSamples);
      await timeSequential(count, () => gateEcho(stubbed.gate), stubbedSamples);
    }
    const gateLabel = 'gate.executor.call echo (auto-allowed)';
    const stubbedLabel = 'the same, tool process answered in-process';
    const bareLabel = 'bare child_process.fork IPC round trip';
    const sandbox = real.gate.sandbox.kind === 'bubblewrap' ? `${real.gate.sandbox.version}` : `no sandbox (${real.gate.sandbox.reason})`;
    const gateStats = summarize(gateSamples);
    const bareStats = summarize(bareSamples);
    return {
      title: 'Auto-allowed call through the gate vs a bare IPC round trip (same run, alternated in blocks)',
      rows: [
        { label: gateLabel, samples: gateSamples },
        { label: bareLabel, samples: bareSamples },
        { label: stubbedLabel, samples: stubbedSamples },
      ],
      notes: [
        `gate: createGate defaults (pool of 2, audit in SQLite, ${sandbox}); ${calls} calls each in blocks of ${block}`,
        'in-process row: the executor, pool and audit without spawning, sandboxing or IPC: what the gate costs apart from the tool process',
      ],
      differences: [[gateLabel, bareLabel]],
      targets: [
        {
          name: 'executor overhead over a bare child_process round trip, p50',
          measured: gateStats.p50,
          baseline: bareStats.p50,
          unit: 'ms',
          holdsWhen: 'at-most',
          limit: EXECUTOR_OVERHEAD_MS,
          difference: true,
        },
      ],
    };
  } finally {
    bare.child.kill();
    await real.close();
    await stubbed.close();
  }
}
