import { describe, expect, it } from 'vitest';
import { GateError } from '../../shared/errors';
import { CallScheduler, type CallTicket } from '../../main/executor/scheduler';

/** A call whose work starts when the scheduler says and ends when the test says. */
interface Job<T = string> {
  name: string;
  result: Promise<T>;
  started: () => boolean;
  finish: (value: T) => void;
  fail: (error: unknown) => void;
}

/** Lets every pending promise callback run; a macrotask turn, not a timed wait. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function harness(maxQueued = 64) {
  const scheduler = new CallScheduler({ maxQueued });
  const log: string[] = [];
  let running = 0;
  let peak = 0;
  const submit = (name: string, ticket: CallTicket): Job => {
    let started = false;
    let finish!: (value: string) => void;
    let fail!: (error: unknown) => void;
    const result = scheduler.run(ticket, () => {
      started = true;
      running++;
      peak = Math.max(peak, running);
      log.push(`start ${name}`);
      return new Promise<string>((resolve, reject) => {
        finish = resolve;
        fail = reject;
      }).finally(() => {
        running--;
        log.push(`end ${name}`);
      });
    });
    // Keep rejections the test checks later from counting as unhandled in between.
    result.catch(() => undefined);
    return {
      name,
      result,
      started: () => started,
      finish: (value) => finish(value),
      fail: (error) => fail(error),
    };
  };
  return { scheduler, log, submit, peak: () => peak };
}

const read = (tool = 'read_file', extra: Partial<CallTicket> = {}): CallTicket => ({ tool, exclusive: false, ...extra });
const write = (tool = 'write_file', extra: Partial<CallTicket> = {}): CallTicket => ({ tool, exclusive: true, ...extra });

async function expectGateError(promise: Promise<unknown>, code: string, message: RegExp): Promise<GateError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GateError);
  expect((error as GateError).code).toBe(code);
  expect((error as GateError).message).toMatch(message);
  return error as GateError;
}

describe('CallScheduler', () => {
  it('starts parallel non-exclusive calls all at once', async () => {
    const { scheduler, submit } = harness();
    const jobs = ['a', 'b', 'c', 'd'].map((name) => submit(name, read()));
    await flush();
    expect(jobs.every((job) => job.started())).toBe(true);
    expect(scheduler.stats()).toEqual({ running: 4, queued: 0, exclusiveRunning: false });
    jobs.forEach((job) => job.finish(job.name));
    expect(await Promise.all(jobs.map((job) => job.result))).toEqual(['a', 'b', 'c', 'd']);
    expect(scheduler.stats()).toEqual({ running: 0, queued: 0, exclusiveRunning: false });
  });

  it('runs exclusive calls one at a time in arrival order', async () => {
    const { scheduler, log, submit } = harness();
    const jobs = ['w1', 'w2', 'w3'].map((name, i) => submit(name, write(i === 1 ? 'run_command' : 'write_file')));
    await flush();
    expect(scheduler.stats()).toEqual({ running: 1, queued: 2, exclusiveRunning: true });
    for (const job of jobs) {
      expect(job.started()).toBe(true);
      job.finish(job.name);
      await job.result;
      await flush();
    }
    expect(log).toEqual(['start w1', 'end w1', 'start w2', 'end w2', 'start w3', 'end w3']);
  });

  it('lets reads run while an exclusive call runs', async () => {
    const { scheduler, submit } = harness();
    const writing = submit('w', write());
    const reads = ['r1', 'r2'].map((name) => submit(name, read()));
    await flush();
    expect(writing.started()).toBe(true);
    expect(reads.every((job) => job.started())).toBe(true);
    expect(scheduler.stats()).toEqual({ running: 3, queued: 0, exclusiveRunning: true });
    reads.forEach((job) => job.finish(job.name));
    writing.finish('w');
    await Promise.all([writing.result, ...reads.map((job) => job.result)]);
  });

  it('keeps a tool to its maxConcurrent and starts the rest in arrival order', async () => {
    const { scheduler, log, submit, peak } = harness();
    const jobs = ['s1', 's2', 's3', 's4', 's5'].map((name) => submit(name, read('search', { maxConcurrent: 2 })));
    await flush();
    expect(jobs.map((job) => job.started())).toEqual([true, true, false, false, false]);
    expect(scheduler.stats()).toMatchObject({ running: 2, queued: 3 });
    for (const job of jobs) {
      job.finish(job.name);
      await job.result;
      await flush();
    }
    expect(peak()).toBe(2);
    expect(log.filter((line) => line.startsWith('start'))).toEqual(['start s1', 'start s2', 'start s3', 'start s4', 'start s5']);
  });

  it('does not let a saturated tool block later calls of other tools', async () => {
    const { submit } = harness();
    const busy = submit('s1', read('search', { maxConcurrent: 1 }));
    const waiting = submit('s2', read('search', { maxConcurrent: 1 }));
    const otherLimited = submit('f1', read('fetch', { maxConcurrent: 1 }));
    const writing = submit('w', write('write_file', { maxConcurrent: 1 }));
    await flush();
    expect([busy, waiting, otherLimited, writing].map((job) => job.started())).toEqual([true, false, true, true]);
    busy.finish('s1');
    await flush();
    expect(waiting.started()).toBe(true);
    for (const job of [waiting, otherLimited, writing]) job.finish(job.name);
    await Promise.all([busy, waiting, otherLimited, writing].map((job) => job.result));
  });

  it('gives an exclusive limited call both slots in one step, without holding the workspace while its tool is full', async () => {
    const { scheduler, log, submit } = harness();
    const spawnRead = submit('p0', read('spawn', { maxConcurrent: 1 }));
    const spawnWrite = submit('p1', write('spawn', { maxConcurrent: 1 }));
    const otherWrite = submit('w1', write('write_file'));
    await flush();
    // p1 waits for its tool only, so the workspace stays free for w1.
    expect([spawnRead.started(), spawnWrite.started(), otherWrite.started()]).toEqual([true, false, true]);
    expect(scheduler.stats()).toEqual({ running: 2, queued: 1, exclusiveRunning: true });
    const laterWrite = submit('w2', write('write_file'));
    spawnRead.finish('p0');
    await flush();
    // Its tool is free but the workspace is not: p1 keeps its place ahead of the later w2.
    expect(spawnWrite.started()).toBe(false);
    otherWrite.finish('w1');
    await flush();
    expect(spawnWrite.started()).toBe(true);
    expect(laterWrite.started()).toBe(false);
    spawnWrite.finish('p1');
    await flush();
    laterWrite.finish('w2');
    await Promise.all([spawnRead, spawnWrite, otherWrite, laterWrite].map((job) => job.result));
    expect(log.filter((line) => line.startsWith('start'))).toEqual(['start p0', 'start w1', 'start p1', 'start w2']);
  });

  it('refuses only the call past maxQueued, with EQUOTA, and the others complete', async () => {
    const { scheduler, submit } = harness(2);
    const jobs = ['w1', 'w2', 'w3'].map((name) => submit(name, write()));
    const extra = submit('w4', write());
    const error = await expectGateError(extra.result, 'EQUOTA', /2 calls are already waiting.*try again shortly/);
    expect(error.details).toEqual({ queued: 2, maxQueued: 2 });
    expect(extra.started()).toBe(false);
    expect(scheduler.stats()).toEqual({ running: 1, queued: 2, exclusiveRunning: true });
    // A call that can start at once is not counted against the queue.
    const reader = submit('r', read());
    await flush();
    expect(reader.started()).toBe(true);
    reader.finish('r');
    for (const job of jobs) {
      await flush();
      job.finish(job.name);
    }
    expect(await Promise.all(jobs.map((job) => job.result))).toEqual(['w1', 'w2', 'w3']);
  });

  it('withdraws a call aborted while it waits, freeing its place for a later call', async () => {
    const { scheduler, submit } = harness(1);
    const first = submit('w1', write());
    const controller = new AbortController();
    const withdrawn = submit('w2', write('write_file', { signal: controller.signal }));
    await flush();
    expect(scheduler.stats().queued).toBe(1);
    controller.abort();
    await expectGateError(withdrawn.result, 'EDENIED', /withdrawn while it waited/);
    expect(scheduler.stats()).toEqual({ running: 1, queued: 0, exclusiveRunning: true });
    const later = submit('w3', write());
    first.finish('w1');
    await flush();
    expect(withdrawn.started()).toBe(false);
    expect(later.started()).toBe(true);
    later.finish('w3');
    expect(await later.result).toBe('w3');
  });

  it('lets calls held back by an aborted waiter go at once', async () => {
    const { submit } = harness();
    const busy = submit('w0', write());
    const controller = new AbortController();
    const blocker = submit('s1', write('search', { maxConcurrent: 1, signal: controller.signal }));
    const behind = submit('s2', read('search', { maxConcurrent: 1 }));
    await flush();
    expect(behind.started()).toBe(false);
    controller.abort();
    await flush();
    expect(behind.started()).toBe(true);
    await expectGateError(blocker.result, 'EDENIED', /withdrawn/);
    busy.finish('w0');
    behind.finish('s2');
    await Promise.all([busy.result, behind.result]);
  });

  it('refuses a call aborted before run without running it', async () => {
    const { scheduler, submit } = harness();
    const job = submit('r', read('read_file', { signal: AbortSignal.abort() }));
    await expectGateError(job.result, 'EDENIED', /withdrawn/);
    expect(job.started()).toBe(false);
    expect(scheduler.stats()).toEqual({ running: 0, queued: 0, exclusiveRunning: false });
  });

  it('releases the slots of work that throws, and passes the error on unchanged', async () => {
    const { scheduler, submit } = harness();
    const failing = submit('w1', write('write_file', { maxConcurrent: 1 }));
    const next = submit('w2', write('write_file', { maxConcurrent: 1 }));
    await flush();
    const boom = new Error('disk full');
    failing.fail(boom);
    await expect(failing.result).rejects.toBe(boom);
    await flush();
    expect(next.started()).toBe(true);
    next.finish('w2');
    expect(await next.result).toBe('w2');

    const syncThrow = new TypeError('not a function');
    await expect(scheduler.run(write(), () => { throw syncThrow; })).rejects.toBe(syncThrow);
    expect(scheduler.stats()).toEqual({ running: 0, queued: 0, exclusiveRunning: false });
  });

  it('completes 200 concurrent calls with their own results', async () => {
    const scheduler = new CallScheduler({ maxQueued: 256 });
    let running = 0;
    let peakSearch = 0;
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => {
        const ticket = i % 3 === 0 ? write() : read('search', { maxConcurrent: 4 });
        return scheduler.run(ticket, async () => {
          if (!ticket.exclusive) peakSearch = Math.max(peakSearch, ++running);
          await flush();
          if (!ticket.exclusive) running--;
          return i;
        });
      }),
    );
    expect(results).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(peakSearch).toBe(4);
    expect(scheduler.stats()).toEqual({ running: 0, queued: 0, exclusiveRunning: false });
  });

  it('holds a call of named files while a program started through the gate runs, and counts the program when it ends', async () => {
    const { scheduler, submit, log } = harness();
    const shell = submit('shell', write('shell_exec', { startsPrograms: true, namesPaths: true }));
    await flush();
    const reading = submit('read', read('read_file', { namesPaths: true }));
    const echo = submit('echo', read('echo'));
    await flush();
    // The program could swap a name the read was judged by; a call of no files runs beside it.
    expect(reading.started()).toBe(false);
    expect(echo.started()).toBe(true);
    expect(scheduler.programsRunning()).toBe(1);
    expect(scheduler.programsEnded()).toBe(0);
    shell.finish('shell');
    await flush();
    expect(reading.started()).toBe(true);
    expect(scheduler.programsEnded()).toBe(1);
    expect(log.indexOf('start read')).toBeGreaterThan(log.indexOf('end shell'));
    reading.finish('read');
    echo.finish('echo');
    expect(await reading.result).toBe('read');
  });

  it('starts no program while a call of named files runs, and lets no later one overtake the waiting program', async () => {
    const { submit, log } = harness();
    const first = submit('r1', read('read_file', { namesPaths: true }));
    await flush();
    const shell = submit('shell', write('shell_exec', { startsPrograms: true, namesPaths: true }));
    const later = submit('r2', read('read_file', { namesPaths: true }));
    const writing = submit('w', write('write_file'));
    await flush();
    expect(shell.started()).toBe(false);
    // Behind the waiting program: a stream of reads must not keep it waiting forever.
    expect(later.started()).toBe(false);
    first.finish('r1');
    await flush();
    expect(shell.started()).toBe(true);
    expect(later.started()).toBe(false);
    shell.finish('shell');
    await flush();
    expect(later.started()).toBe(true);
    expect(writing.started()).toBe(true);
    later.finish('r2');
    writing.finish('w');
    await Promise.all([later.result, writing.result]);
    expect(log.slice(0, 4)).toEqual(['start r1', 'end r1', 'start shell', 'end shell']);
  });

  it('close() refuses waiters and new calls, lets running work finish, and can be called twice', async () => {
    const { scheduler, submit } = harness();
    const running = submit('w1', write());
    const waiting = submit('w2', write());
    await flush();
    scheduler.close();
    scheduler.close();
    await expectGateError(waiting.result, 'ECRASH', /shutting down/);
    await expectGateError(submit('r', read()).result, 'ECRASH', /shutting down/);
    expect(waiting.started()).toBe(false);
    running.finish('w1');
    expect(await running.result).toBe('w1');
    expect(scheduler.stats()).toEqual({ running: 0, queued: 0, exclusiveRunning: false });
  });
});
