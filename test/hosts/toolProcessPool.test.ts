import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GateError } from '../../shared/errors';
import { createChildProcessHost } from '../../main/hosts/childProcessHost';
import { toolEnvironment } from '../../main/hosts/toolEnvironment';
import type { SandboxProfile } from '../../main/hosts/sandbox';
import { profileName } from '../../main/hosts/spareDemand';
import type { ToolProcess, ToolProcessOptions } from '../../main/hosts/toolProcess';
import { READ_ONLY_PROFILE, type ToolProcessPoolOptions } from '../../main/hosts/poolOptions';
import type { RunOutcome } from '../../main/hosts/toolCall';
import { ToolProcessPool } from '../../main/hosts/toolProcessPool';
import { builtAssets } from '../../main/state/paths';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { WAIT_MS, waitUntil } from '../fixtures/processes';

const HOSTILE = resolve(__dirname, '../fixtures/tools/hostile.mjs');
const PROBE = resolve(__dirname, '../fixtures/tools/probe.mjs');

let pool: ToolProcessPool | undefined;
let workspace: string | undefined;
let started: ToolProcess[] = [];
afterEach(async () => {
  await pool?.close();
  if (workspace) removeTempFolder(workspace);
  pool = undefined;
  workspace = undefined;
  started = [];
});

/** A pool of real child processes running the built tool-process entry; records each process it starts. */
function makePool(options: Partial<ToolProcessPoolOptions> = {}): ToolProcessPool {
  workspace = makeTempFolder();
  pool = new ToolProcessPool({
    factory: (processOptions) => {
      const child = createChildProcessHost(processOptions);
      started.push(child);
      return child;
    },
    entry: builtAssets().toolProcess,
    env: toolEnvironment(),
    size: 1,
    maxQueue: 4,
    ...options,
  });
  return pool;
}

let calls = 0;
function request(tool: string, input: unknown = {}, module = tool === 'echo' ? 'builtin' : HOSTILE) {
  return { callId: `call-${++calls}`, tool, module, input, context: { workspace: workspace!, dryRun: false } };
}

function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('ToolProcessPool with child processes', () => {
  it('runs a built-in tool in another process and returns its data', async () => {
    const outcome = await makePool().run(request('echo', { text: 'over IPC' }), { timeoutMs: WAIT_MS, maxMemoryMb: 512 });
    expect(outcome).toMatchObject({ ok: true, data: { text: 'over IPC' } });
    expect(started[0]!.pid).not.toBe(process.pid);
  });

  it('kills a call past its deadline, and the very next call runs in a fresh process', async () => {
    const tools = makePool();
    const hung = await tools.run(request('hang'), { timeoutMs: 200, maxMemoryMb: 512 });
    expect(hung).toMatchObject({ ok: false, error: { code: 'ETIMEOUT', details: { timeoutMs: 200 } } });
    const next = await tools.run(request('echo', { text: 'next' }), { timeoutMs: WAIT_MS, maxMemoryMb: 512 });
    expect(next).toMatchObject({ ok: true, data: { text: 'next' } });
    expect(started.length).toBe(2);
    await waitUntil(() => !isAlive(started[0]!.pid), 'the first process to be gone');
  });

  it('fails a call whose process dies with ECRASH and the exit code, then replaces the process', async () => {
    const tools = makePool();
    const crashed = await tools.run(request('crash'), { timeoutMs: WAIT_MS, maxMemoryMb: 512 });
    expect(crashed).toMatchObject({ ok: false, error: { code: 'ECRASH', details: { reason: 'crashed', code: 3 } } });
    expect((await tools.run(request('echo', { text: 'after crash' }), { timeoutMs: WAIT_MS, maxMemoryMb: 512 })).ok).toBe(true);
    expect(tools.stats().processes).toBe(1);
  });

  it('kills a process that sends a message outside the protocol', async () => {
    const tools = makePool();
    const rogue = await tools.run(request('rogue_message'), { timeoutMs: WAIT_MS, maxMemoryMb: 512 });
    expect(rogue).toMatchObject({ ok: false, error: { code: 'ECRASH', message: expect.stringContaining('malformed message') } });
    expect((await tools.run(request('echo', { text: 'fine' }), { timeoutMs: WAIT_MS, maxMemoryMb: 512 })).ok).toBe(true);
    await waitUntil(() => !isAlive(started[0]!.pid), 'the first process to be gone');
  });

  it('queues calls for a busy process and refuses with EQUOTA once the queue is full', async () => {
    const tools = makePool({ maxQueue: 1 });
    const hung = tools.run(request('hang'), { timeoutMs: 300, maxMemoryMb: 512 });
    const queued = tools.run(request('echo', { text: 'queued' }), { timeoutMs: WAIT_MS, maxMemoryMb: 512 });
    await expect(tools.run(request('echo', { text: 'one too many' }), { timeoutMs: WAIT_MS, maxMemoryMb: 512 })).rejects.toMatchObject({ code: 'EQUOTA' });
    expect((await hung).ok).toBe(false);
    expect(await queued).toMatchObject({ ok: true, data: { text: 'queued' } });
  });

  it('a process that cannot start says why: its own words on stderr are in the ECRASH message', async () => {
    const tools = makePool({ entry: '/nonexistent/toolProcess.js' });
    const outcome = await tools.run(request('echo', { text: 'never' }), { timeoutMs: WAIT_MS, maxMemoryMb: 512 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'ECRASH' } });
    const message = outcome.ok ? '' : outcome.error.message;
    expect(message).toMatch(/exited before it was ready \(exit code 1\); it said: .*Cannot find module '\/nonexistent\/toolProcess\.js'/);
  });

  it('reports a tool module that does not export the tool as ENOTFOUND, as data', async () => {
    const outcome = await makePool().run(request('no_such_tool', {}, HOSTILE), { timeoutMs: WAIT_MS, maxMemoryMb: 512 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'ENOTFOUND' } });
  });

  it('hands each log line to onLog with the call it belongs to', async () => {
    const lines: Array<[string | undefined, string, string]> = [];
    const tools = makePool({ onLog: (callId, stream, line) => lines.push([callId, stream, line]) });
    const call = request('log_lines', { text: 'hello' }, PROBE);
    expect((await tools.run(call, { timeoutMs: WAIT_MS, maxMemoryMb: 512 })).ok).toBe(true);
    await waitUntil(() => lines.length >= 2, 'two log lines');
    expect(lines).toEqual(
      expect.arrayContaining([
        [call.callId, 'stdout', 'out: hello'],
        [call.callId, 'stderr', 'err: hello'],
      ]),
    );
  });

  it('starts tool processes with the scrubbed environment only', async () => {
    const env = toolEnvironment({ PATH: process.env.PATH, TOOLGATE_TOKEN: 'secret', NODE_OPTIONS: '--require /evil.js', AWS_SECRET_ACCESS_KEY: 'k' });
    expect(Object.keys(env)).toEqual(['PATH']);
    const outcome = await makePool({ env }).run(request('env_names', {}, PROBE), { timeoutMs: WAIT_MS, maxMemoryMb: 512 });
    expect(outcome.ok).toBe(true);
    const names = (outcome as { data: { names: string[] } }).data.names;
    for (const secret of ['TOOLGATE_TOKEN', 'NODE_OPTIONS', 'AWS_SECRET_ACCESS_KEY', 'TOOLGATE_HOME']) expect(names).not.toContain(secret);
  });

  it('holds one idle process until the first call, which starts the rest of the pool for the calls that follow', async () => {
    const tools = makePool({ size: 3 });
    // A gate that only relays upstream servers never calls a built-in: it keeps one process, not three.
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(started).toHaveLength(1);
    expect((await tools.run(request('echo', { text: 'first' }), { timeoutMs: WAIT_MS, maxMemoryMb: 512 })).ok).toBe(true);
    await waitUntil(() => started.length === 3, 'a third process');
    // Three calls at once each find a process ready: none is started for them.
    const together = await Promise.all([1, 2, 3].map((i) => tools.run(request('echo', { text: `together ${i}` }), { timeoutMs: WAIT_MS, maxMemoryMb: 512 })));
    expect(together.map((outcome) => outcome.ok)).toEqual([true, true, true]);
    expect(started).toHaveLength(3);
    expect(started.every((child) => isAlive(child.pid))).toBe(true);
  });

  it('gives a call the process freed last: calls one after another all run in the same warm process', async () => {
    const served: Array<number | undefined> = [];
    const tools = makePool({
      size: 2,
      factory: (processOptions) => {
        const child = createChildProcessHost(processOptions);
        started.push(child);
        const send = child.send.bind(child);
        child.send = (message) => {
          if (message.type === 'run') served.push(child.pid);
          send(message);
        };
        return child;
      },
    });
    const limits = { timeoutMs: WAIT_MS, maxMemoryMb: 512, startsNothing: true };
    expect((await tools.run(request('echo', { text: 'first' }), limits)).ok).toBe(true);
    await waitUntil(() => started.length === 2, 'a second process');
    // Both processes serve a call at once, so both have run and been freed.
    await Promise.all([1, 2].map((i) => tools.run(request('echo', { text: `together ${i}` }), limits)));
    expect(new Set(served.slice(1)).size).toBe(2);
    served.length = 0;
    for (let i = 0; i < 6; i++) expect((await tools.run(request('echo', { text: `in turn ${i}` }), limits)).ok).toBe(true);
    expect(served).toHaveLength(6);
    expect(new Set(served).size).toBe(1);
  });

  it('close() ends every process, is idempotent, and later calls are refused', async () => {
    const tools = makePool({ size: 2 });
    expect((await tools.run(request('echo', { text: 'warm' }), { timeoutMs: WAIT_MS, maxMemoryMb: 512 })).ok).toBe(true);
    await Promise.all([tools.close(), tools.close()]);
    for (const child of started) expect(isAlive(child.pid)).toBe(false);
    const refused = tools.run(request('echo', { text: 'late' }), { timeoutMs: WAIT_MS, maxMemoryMb: 512 });
    await expect(refused).rejects.toBeInstanceOf(GateError);
    await expect(refused).rejects.toMatchObject({ code: 'ECRASH' });
  });
});

const WRITE: SandboxProfile = { writeWorkspace: true, network: false, spawnsProcesses: false };
const NETWORK: SandboxProfile = { writeWorkspace: false, network: true, spawnsProcesses: false };
const SPAWNS: SandboxProfile = { writeWorkspace: false, network: false, spawnsProcesses: true };

describe('spare tool processes', () => {
  /** The profile each process the pool started was for, in order. */
  let profiles: string[] = [];

  /** A pool of one bare process per profile, keeping `spares` spares; records each process's profile. */
  function sparePool(spares: number, idleMs = 60_000, size = 1): ToolProcessPool {
    profiles = [];
    return makePool({
      factory: (options: ToolProcessOptions) => {
        profiles.push(options.wrapper?.command ?? 'unknown');
        return createChildProcessHost({ ...options, wrapper: undefined });
      },
      // The wrapper carries the profile's name to the factory above, which drops it: tools run bare.
      isolate: (profile) => ({
        key: profileName(profile),
        wrapper: { command: profileName(profile), args: [] },
        // As the gate's sandboxes do: a single-use one is judged after its call, once it has been ended.
        ...(profile.spawnsProcesses ? { singleUse: true, afterCall: (_tool: string, outcome: RunOutcome) => outcome } : {}),
      }),
      spares: { spares, idleMs },
      size,
    });
  }

  function echo(profile: SandboxProfile) {
    return pool!.run(request('echo', { text: 'hi' }), { timeoutMs: WAIT_MS, maxMemoryMb: 1024 }, profile);
  }

  it('a write announced with expect() runs in the process started for it, beside the read-only one', async () => {
    sparePool(2).expect(WRITE);
    await waitUntil(() => profiles.length === 2, 'two profiles started');
    expect(profiles).toEqual([profileName(READ_ONLY_PROFILE), profileName(WRITE)]);
    await expect(echo(WRITE)).resolves.toMatchObject({ ok: true });
    await expect(echo(READ_ONLY_PROFILE)).resolves.toMatchObject({ ok: true });
    // Neither call had to start a process, nor end the other profile's.
    expect(profiles).toEqual([profileName(READ_ONLY_PROFILE), profileName(WRITE)]);
  });

  it('the first call fills the read-only profile to the pool size, a spare of another profile beside it', async () => {
    sparePool(2, 60_000, 2).expect(WRITE);
    await waitUntil(() => profiles.length === 2, 'two profiles started');
    await expect(echo(READ_ONLY_PROFILE)).resolves.toMatchObject({ ok: true });
    await waitUntil(() => profiles.filter((name) => name === profileName(READ_ONLY_PROFILE)).length === 2, 'two read-only processes');
    expect(profiles.filter((name) => name === profileName(WRITE))).toHaveLength(1);
  });

  it('a single-use sandbox taken by a call is replaced by a fresh one started in the background', async () => {
    sparePool(2);
    const singleUse = () => profiles.filter((name) => name === profileName(SPAWNS)).length;
    await expect(echo(SPAWNS)).resolves.toMatchObject({ ok: true });
    await waitUntil(() => singleUse() === 2, 'two single-use processes');
    await expect(echo(SPAWNS)).resolves.toMatchObject({ ok: true });
    await waitUntil(() => singleUse() === 3, 'three single-use processes');
  });

  it('calls of one profile at once wait for its process: the spares are kept for profiles no process serves', async () => {
    sparePool(2);
    const outcomes = await Promise.all([1, 2, 3, 4].map(() => echo(READ_ONLY_PROFILE)));
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
    expect(profiles).toEqual([profileName(READ_ONLY_PROFILE)]);
    // A call of a profile no process serves still gets a spare of its own at once.
    await expect(echo(WRITE)).resolves.toMatchObject({ ok: true });
    expect(profiles).toEqual([profileName(READ_ONLY_PROFILE), profileName(WRITE)]);
  });

  it('never holds more than size + spares processes, however many profiles are asked for', async () => {
    const spares = sparePool(2);
    for (const profile of [WRITE, NETWORK, SPAWNS, { ...WRITE, network: true }]) spares.expect(profile);
    await waitUntil(() => profiles.length >= 3, 'three profiles started');
    await new Promise((resolveWait) => setTimeout(resolveWait, 200));
    expect(spares.stats().processes).toBeLessThanOrEqual(3);
    // The two asked for last have the spares.
    expect(profiles.slice(1).sort()).toEqual([profileName(SPAWNS), profileName({ ...WRITE, network: true })].sort());
  });

  it('ends the spare of a profile no one asked for within idleMs, keeping the pool its size', async () => {
    const spares = sparePool(2, 100);
    // Asked for until its spare is up: the pool looks at what was asked for a moment later, and on a
    // busy machine that moment can come after idleMs, when the ask no longer earns a spare.
    await waitUntil(() => {
      spares.expect(WRITE);
      return spares.stats().processes === 2;
    }, 'two processes');
    await waitUntil(() => spares.stats().processes === 1, 'one process left');
    expect(spares.stats()).toMatchObject({ processes: 1, idle: 1 });
  });
});
