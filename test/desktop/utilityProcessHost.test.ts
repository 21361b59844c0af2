import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolProcessExit } from '../../main/hosts/toolProcess';

/** A utilityProcess child double: the test plays the process's side by emitting its events. */
class FakeChild extends EventEmitter {
  pid: number | undefined = 424242;
  stdout = new PassThrough();
  stderr = new PassThrough();
  postMessage = vi.fn();
  kill = vi.fn(() => true);
}

const electron = vi.hoisted(() => ({ children: [] as FakeChild[], fork: vi.fn() }));
vi.mock('electron', () => ({ utilityProcess: { fork: electron.fork } }));

const { CLOSE_GRACE_MS, createUtilityProcessHost } = await import('../../main/hosts/utilityProcessHost');

const RUN = {
  type: 'run',
  callId: 'c1',
  tool: 'echo',
  module: 'builtin',
  input: {},
  context: { workspace: '/w', dryRun: false },
} as const;

let killSpy: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  electron.children.length = 0;
  electron.fork.mockImplementation(() => {
    const child = new FakeChild();
    electron.children.push(child);
    return child;
  });
  // Never let the host signal a real process.
  killSpy = vi.spyOn(process, 'kill').mockImplementation(() => true);
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function start(onLog?: (stream: 'stdout' | 'stderr', line: string) => void) {
  const host = createUtilityProcessHost({ entry: '/app/out/main/toolProcess.js', env: { A: '1' }, label: 'tool-1', onLog });
  const child = electron.children.at(-1)!;
  const exits: ToolProcessExit[] = [];
  host.onExit((exit) => exits.push(exit));
  return { host, child, exits };
}

describe('utility process host', () => {
  it('forks the entry with its label, scrubbed env and piped output', () => {
    const { host } = start();
    expect(electron.fork).toHaveBeenCalledWith('/app/out/main/toolProcess.js', [], {
      serviceName: 'tool-1',
      env: { A: '1' },
      stdio: 'pipe',
    });
    expect(host.pid).toBe(424242);
  });

  it('relays messages both ways and drops sends after exit', () => {
    const { host, child } = start();
    const received: unknown[] = [];
    const stop = host.onMessage((message) => received.push(message));
    host.send(RUN);
    expect(child.postMessage).toHaveBeenCalledWith(RUN);
    child.emit('message', { type: 'ready' });
    stop();
    child.emit('message', { type: 'late' });
    expect(received).toEqual([{ type: 'ready' }]);

    child.emit('exit', 0);
    host.send(RUN);
    expect(child.postMessage).toHaveBeenCalledTimes(1);
  });

  it('splits stdout and stderr into lines, across chunks and multibyte characters', async () => {
    const lines: string[] = [];
    const { child } = start((stream, line) => lines.push(`${stream}:${line}`));
    const euro = Buffer.from('€\n');
    child.stdout.write('one\ntw');
    child.stdout.write('o\n');
    child.stderr.write('oops\n');
    child.stdout.write(euro.subarray(0, 1));
    child.stdout.write(euro.subarray(1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual(['stdout:one', 'stdout:two', 'stderr:oops', 'stdout:€']);
  });

  it('reports a process that dies on its own as crashed, with its code, once', () => {
    const { child, exits } = start();
    child.emit('exit', 3);
    child.emit('exit', 3);
    expect(exits).toEqual([{ reason: 'crashed', code: 3, signal: null }]);
  });

  it('kill() kills at once, idempotently, and the exit says killed', () => {
    const { host, child, exits } = start();
    host.kill();
    host.kill();
    expect(child.kill).toHaveBeenCalledTimes(1);
    expect(killSpy).toHaveBeenCalledTimes(1);
    expect(killSpy).toHaveBeenCalledWith(424242, 'SIGKILL');
    host.send(RUN);
    expect(child.postMessage).not.toHaveBeenCalled();
    child.emit('exit', 0);
    host.kill();
    expect(child.kill).toHaveBeenCalledTimes(1);
    expect(exits).toEqual([{ reason: 'killed' }]);
  });

  it('a kill before the process spawned reaches it once it does', () => {
    const { host, child } = start();
    child.pid = undefined;
    host.kill();
    expect(killSpy).not.toHaveBeenCalled();
    child.pid = 5150;
    child.emit('spawn');
    expect(killSpy).toHaveBeenCalledWith(5150, 'SIGKILL');
  });

  it('close() asks the process to end and resolves when it does within the grace, as closed', async () => {
    vi.useFakeTimers();
    const { host, child, exits } = start();
    const closed = host.close();
    expect(host.close()).toBe(closed);
    expect(child.kill).toHaveBeenCalledTimes(1);
    host.send(RUN);
    expect(child.postMessage).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(CLOSE_GRACE_MS - 1);
    child.emit('exit', 0);
    await closed;
    await vi.advanceTimersByTimeAsync(CLOSE_GRACE_MS * 2);
    expect(child.kill).toHaveBeenCalledTimes(1);
    expect(killSpy).not.toHaveBeenCalled();
    expect(exits).toEqual([{ reason: 'closed' }]);
  });

  it('close() SIGKILLs a process still running after the grace period, then resolves on its exit', async () => {
    vi.useFakeTimers();
    const { host, child, exits } = start();
    let resolved = false;
    const closed = host.close().then(() => {
      resolved = true;
    });
    await vi.advanceTimersByTimeAsync(CLOSE_GRACE_MS - 1);
    expect(killSpy).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(killSpy).toHaveBeenCalledWith(424242, 'SIGKILL');
    expect(resolved).toBe(false);
    child.emit('exit', 0);
    await closed;
    expect(exits).toEqual([{ reason: 'closed' }]);
    await host.close();
    host.kill();
    expect(killSpy).toHaveBeenCalledTimes(1);
  });

  it('kill() then close(): the exit says killed and close() resolves on it', async () => {
    const { host, child, exits } = start();
    host.kill();
    const closed = host.close();
    child.emit('exit', 0);
    await closed;
    expect(exits).toEqual([{ reason: 'killed' }]);
  });

  it('close() does not hang on a process that will not die', async () => {
    vi.useFakeTimers();
    const { host } = start();
    const closed = host.close();
    await vi.advanceTimersByTimeAsync(CLOSE_GRACE_MS * 2);
    await expect(closed).resolves.toBeUndefined();
  });

  it('close() after exit resolves at once; onExit after exit is still called once', async () => {
    const { host, child } = start();
    child.emit('exit', 1);
    await host.close();
    const late = vi.fn();
    host.onExit(late);
    await Promise.resolve();
    expect(late).toHaveBeenCalledTimes(1);
    expect(late).toHaveBeenCalledWith({ reason: 'crashed', code: 1, signal: null });
  });

  it('a listener that throws does not stop the others', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const { host, child, exits } = start();
    host.onExit(() => {
      throw new Error('listener bug');
    });
    const after = vi.fn();
    host.onExit(after);
    child.emit('exit', 9);
    expect(exits).toHaveLength(1);
    expect(after).toHaveBeenCalledTimes(1);
  });
});
