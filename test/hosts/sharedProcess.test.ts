import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createChildProcessHost } from '../../main/hosts/childProcessHost';
import { toolEnvironment } from '../../main/hosts/toolEnvironment';
import type { ToolProcess } from '../../main/hosts/toolProcess';
import type { CallLimits } from '../../main/hosts/toolCall';
import { ToolProcessPool } from '../../main/hosts/toolProcessPool';
import { builtAssets } from '../../main/state/paths';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { WAIT_MS } from '../fixtures/processes';

// Calls of the gate's own code that change nothing may share a tool process (CallLimits.mayShare):
// many agents' reads then wake one process instead of one each. What they must never do: get each
// other's answers, be held behind a slow neighbour, or be blamed for what a neighbour did to the
// process they shared.

const HOSTILE = resolve(__dirname, '../fixtures/tools/hostile.mjs');
const PROBE = resolve(__dirname, '../fixtures/tools/probe.mjs');

let pool: ToolProcessPool | undefined;
let workspace: string | undefined;
let started: ToolProcess[] = [];
/** The most calls one process was sent before it answered one of them. */
let mostAtOnce = 0;
/** How many times each call was sent to a process. */
const sent = new Map<string, number>();
afterEach(async () => {
  await pool?.close();
  if (workspace) removeTempFolder(workspace);
  pool = undefined;
  workspace = undefined;
  started = [];
  mostAtOnce = 0;
  sent.clear();
});

/**
 * A pool of one real child process (unless `size` says more), counting the calls each holds at once.
 * With `failFirstStart`, its first process cannot start (its entry is missing).
 */
function makePool(size = 1, failFirstStart = false): ToolProcessPool {
  workspace = makeTempFolder();
  pool = new ToolProcessPool({
    factory: (options) => {
      const child = createChildProcessHost(failFirstStart && started.length === 0 ? { ...options, entry: '/nonexistent/toolProcess.js' } : options);
      started.push(child);
      const open = new Set<string>();
      const send = child.send.bind(child);
      child.send = (message) => {
        if (message.type === 'run') {
          open.add(message.callId);
          sent.set(message.callId, (sent.get(message.callId) ?? 0) + 1);
        }
        mostAtOnce = Math.max(mostAtOnce, open.size);
        send(message);
      };
      child.onMessage((message) => {
        const reply = message as { type?: string; callId?: string };
        if (reply.type === 'result' && reply.callId !== undefined) open.delete(reply.callId);
      });
      return child;
    },
    entry: builtAssets().toolProcess,
    env: toolEnvironment(),
    size,
    maxQueue: 64,
  });
  return pool;
}

let calls = 0;
function request(tool: string, input: unknown = {}, module = tool === 'echo' ? 'builtin' : tool === 'sleep' ? PROBE : HOSTILE) {
  return { callId: `shared-${++calls}`, tool, module, input, context: { workspace: workspace!, dryRun: false } };
}

const SHARES: CallLimits = { timeoutMs: WAIT_MS, maxMemoryMb: 512, startsNothing: true, mayShare: true };

/** Says whether `promise` has settled yet. */
function settledFlag(promise: Promise<unknown>): { settled: boolean } {
  const flag = { settled: false };
  void promise.finally(() => (flag.settled = true));
  return flag;
}

describe('calls that share a tool process', () => {
  it('sixteen calls at once in one process each get their own answer', async () => {
    const tools = makePool();
    const texts = Array.from({ length: 16 }, (_, i) => `agent ${i} says ${'x'.repeat(i)}`);
    const outcomes = await Promise.all(texts.map((text) => tools.run(request('echo', { text }), SHARES)));
    expect(outcomes.map((outcome) => (outcome.ok ? (outcome.data as { text: string }).text : outcome.error.message))).toEqual(texts);
    expect(started).toHaveLength(1);
    expect(mostAtOnce).toBeGreaterThan(1);
  });

  it('a call joins a process whose call is still under way, and answers while that one goes on', async () => {
    const tools = makePool();
    const slow = tools.run(request('sleep', { ms: WAIT_MS / 2 }), SHARES);
    const slowEnded = settledFlag(slow);
    const quick = await tools.run(request('echo', { text: 'quick' }), SHARES);
    expect(quick).toMatchObject({ ok: true, data: { text: 'quick' } });
    expect(slowEnded.settled).toBe(false);
    expect(mostAtOnce).toBe(2);
  });

  it('a call that may not share waits for the busy process, as does one with another memory bound', async () => {
    const tools = makePool();
    const slow = tools.run(request('sleep', { ms: 1500 }), SHARES);
    const slowEnded = settledFlag(slow);
    const own = await tools.run(request('echo', { text: 'alone' }), { ...SHARES, mayShare: false });
    expect(own).toMatchObject({ ok: true, data: { text: 'alone' } });
    expect(slowEnded.settled).toBe(true);
    const slowAgain = tools.run(request('sleep', { ms: 1500 }), SHARES);
    const slowAgainEnded = settledFlag(slowAgain);
    const otherBound = await tools.run(request('echo', { text: 'other bound' }), { ...SHARES, maxMemoryMb: 256 });
    expect(otherBound).toMatchObject({ ok: true });
    expect(slowAgainEnded.settled).toBe(true);
    expect(mostAtOnce).toBe(1);
  });

  it('calls that may share, queued behind one that may not, go to the process together once it is free', async () => {
    const tools = makePool();
    const first = tools.run(request('sleep', { ms: 500 }), { ...SHARES, mayShare: false });
    const texts = ['one', 'two', 'three', 'four'];
    const queued = await Promise.all(texts.map((text) => tools.run(request('echo', { text }), SHARES)));
    expect(queued.map((outcome) => outcome.ok && (outcome.data as { text: string }).text)).toEqual(texts);
    expect(await first).toMatchObject({ ok: true });
    expect(mostAtOnce).toBe(texts.length);
  });

  it('a deadline passed in a shared process blames no one: each call runs again alone, where the hung one times out on its own', async () => {
    const tools = makePool();
    const neighbour = request('sleep', { ms: 1000 });
    const waiting = tools.run(neighbour, SHARES);
    const call = request('hang');
    const hung = await tools.run(call, { ...SHARES, timeoutMs: 200 });
    // Its own message, from its run alone: the one in the shared process was its neighbour's time too.
    expect(hung).toMatchObject({ ok: false, error: { code: 'ETIMEOUT', details: { timeoutMs: 200 } } });
    expect(hung.ok ? '' : hung.error.message).toMatch(/^hang ran past its 200 ms deadline and was stopped after/);
    expect(await waiting).toMatchObject({ ok: true, data: { slept: 1000 } });
    expect([sent.get(neighbour.callId), sent.get(call.callId)]).toEqual([2, 2]);
  });

  it('a call that kills the shared process fails alone with its own exit, and its neighbour answers', async () => {
    const tools = makePool();
    const neighbour = request('sleep', { ms: 3000 });
    const waiting = tools.run(neighbour, SHARES);
    const crashed = await tools.run(request('crash'), SHARES);
    // Run again in a process of its own, the crash is its own: its exit code, not its neighbour's.
    expect(crashed).toMatchObject({ ok: false, error: { code: 'ECRASH' } });
    expect(crashed.ok ? '' : crashed.error.message).toMatch(/died mid-call \(exit code 3\)$/);
    expect(crashed).not.toHaveProperty('runAlone');
    expect(await waiting).toMatchObject({ ok: true, data: { slept: 3000 } });
    expect(sent.get(neighbour.callId)).toBe(2);
    expect(mostAtOnce).toBe(2);
  });

  it('a withdrawn call leaves the process it shares serving its neighbour, and answers once its own work is done', async () => {
    const tools = makePool();
    // Started and ready: the withdrawal comes while the call runs, not while it waits for the process.
    expect(await tools.run(request('echo', { text: 'warm' }), SHARES)).toMatchObject({ ok: true });
    const ended: string[] = [];
    const neighbour = request('sleep', { ms: 400 });
    const waiting = tools.run(neighbour, SHARES).then((outcome) => (ended.push('neighbour'), outcome));
    const withdraw = new AbortController();
    const call = request('sleep', { ms: 1200 });
    const withdrawn = tools.run(call, SHARES, undefined, withdraw.signal).then((outcome) => (ended.push('withdrawn'), outcome));
    setTimeout(() => withdraw.abort(), 100);
    expect(await withdrawn).toMatchObject({ ok: false, error: { code: 'EDENIED', message: 'sleep was withdrawn before it finished; it changed nothing' } });
    expect(await waiting).toMatchObject({ ok: true, data: { slept: 400 } });
    // It kept its place until its work ended: withdrawn work never piles up in a process past its bounds.
    expect(ended).toEqual(['neighbour', 'withdrawn']);
    expect([sent.get(neighbour.callId), sent.get(call.callId), started.length]).toEqual([1, 1, 1]);
  });

  it('a call withdrawn while it waits for a process leaves the queue at once and never runs', async () => {
    const tools = makePool();
    const busy = tools.run(request('sleep', { ms: 1500 }), { ...SHARES, mayShare: false });
    const busyEnded = settledFlag(busy);
    const withdraw = new AbortController();
    const call = request('echo', { text: 'never' });
    const queued = tools.run(call, SHARES, undefined, withdraw.signal);
    setTimeout(() => withdraw.abort(), 100);
    await expect(queued).rejects.toMatchObject({ code: 'EDENIED', message: 'the call was withdrawn while it waited for a tool process; it did not run' });
    expect(busyEnded.settled).toBe(false);
    expect(await busy).toMatchObject({ ok: true });
    expect(sent.has(call.callId)).toBe(false);
  });

  it('a call withdrawn before it is sent does not run and leaves the process alone', async () => {
    const tools = makePool();
    const neighbour = request('sleep', { ms: 500 });
    const waiting = tools.run(neighbour, SHARES);
    const withdraw = new AbortController();
    withdraw.abort();
    const call = request('echo', { text: 'never' });
    expect(await tools.run(call, SHARES, undefined, withdraw.signal)).toMatchObject({ ok: false, error: { code: 'EDENIED', message: 'echo was withdrawn before it started; it did not run' } });
    expect(await waiting).toMatchObject({ ok: true });
    expect([sent.get(neighbour.callId), sent.has(call.callId), started.length]).toEqual([1, false, 1]);
  });

  it('a call that may not share, queued while shared calls run, goes before shared calls that come after it', async () => {
    const tools = makePool();
    expect(await tools.run(request('echo', { text: 'warm' }), SHARES)).toMatchObject({ ok: true });
    const ended: string[] = [];
    const track = (name: string, outcome: Promise<unknown>) => outcome.then(() => ended.push(name));
    const first = track('shared first', tools.run(request('sleep', { ms: 300 }), SHARES));
    const alone = track('alone', tools.run(request('echo', { text: 'alone' }), { ...SHARES, mayShare: false }));
    const later = track('shared later', tools.run(request('sleep', { ms: 300 }), SHARES));
    await Promise.all([first, alone, later]);
    expect(ended).toEqual(['shared first', 'alone', 'shared later']);
  });

  it('a call queued behind a full shared process takes the first place that frees', async () => {
    const tools = makePool();
    const full = Array.from({ length: 8 }, (_, i) => tools.run(request('sleep', { ms: i === 0 ? 200 : 3000 }), SHARES));
    const lastEnded = settledFlag(Promise.all(full));
    const queued = await tools.run(request('echo', { text: 'ninth' }), SHARES);
    expect(queued).toMatchObject({ ok: true, data: { text: 'ninth' } });
    expect(lastEnded.settled).toBe(false);
    expect(mostAtOnce).toBe(8);
    await Promise.all(full);
  });

  it('a process still starting takes no second call: one that cannot start fails the call it was given, not eight', async () => {
    const tools = makePool(1, true);
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => tools.run(request('echo', { text: `call ${i}` }), SHARES)));
    expect(outcomes.filter((outcome) => !outcome.ok).map((outcome) => !outcome.ok && outcome.error.message)).toEqual([expect.stringMatching(/exited before it was ready/)]);
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(7);
  });
});
