import { afterEach, describe, expect, it } from 'vitest';
import type { HostRequest } from '../../main/hosts/protocol';
import type { ToolProcess, ToolProcessExit, ToolProcessFactory } from '../../main/hosts/toolProcess';
import { ToolProcessPool } from '../../main/hosts/toolProcessPool';
import { WAIT_MS, waitUntil } from '../fixtures/processes';

/** A tool process that never says it is ready and exits only when killed. */
class SilentProcess implements ToolProcess {
  readonly pid = undefined;
  private exitListeners: Array<(exit: ToolProcessExit) => void> = [];
  killed = false;
  readonly sent: HostRequest[] = [];
  send(message: HostRequest): void {
    this.sent.push(message);
  }
  onMessage(): () => void {
    return () => {};
  }
  onExit(listener: (exit: ToolProcessExit) => void): () => void {
    this.exitListeners.push(listener);
    return () => {};
  }
  kill(): void {
    if (this.killed) return;
    this.killed = true;
    setTimeout(() => this.exitListeners.forEach((listener) => listener({ reason: 'killed' })), 5);
  }
  async terminate(): Promise<'SIGTERM' | 'SIGKILL'> {
    this.kill();
    return 'SIGKILL';
  }
  killStrays(): void {}
  setMemoryLimit(): boolean {
    return false;
  }
  memoryEvents(): undefined {
    return undefined;
  }
  forksRefused(): undefined {
    return undefined;
  }
  async close(): Promise<void> {
    this.kill();
  }
}

let pool: ToolProcessPool | undefined;
afterEach(async () => {
  await pool?.close();
});

/** A tool process that exits on its own before it is ready (a sandbox that cannot start). */
class ExitingProcess extends SilentProcess {
  exited = false;
  constructor() {
    super();
    this.onExit(() => (this.exited = true));
    setTimeout(() => this.kill(), 1);
  }
}

/** A pool of one process at a time, each from `make` (kept in the list returned, in the order started). */
function poolOf<P extends SilentProcess>(make: () => P, startTimeoutMs?: number): { tools: ToolProcessPool; started: P[] } {
  const started: P[] = [];
  const factory: ToolProcessFactory = () => {
    const process = make();
    started.push(process);
    return process;
  };
  const tools = new ToolProcessPool({ factory, entry: 'unused', env: {}, size: 1, maxQueue: 4, ...(startTimeoutMs !== undefined ? { startTimeoutMs } : {}) });
  pool = tools;
  return { tools, started };
}

describe('a tool process that never starts', () => {
  it('is started again at most three times in a row, then only when a call needs one', async () => {
    const { tools, started } = poolOf(() => new ExitingProcess());
    // The pool decides on a fourth as the third's exit is told: none is started then.
    await waitUntil(() => started.length >= 3 && started[2]!.exited, 'the third process to exit');
    expect(started).toHaveLength(3);
    const outcome = await tools.run({ callId: 'c1', tool: 'echo', module: 'builtin', input: {}, context: { workspace: '/', dryRun: false } }, { timeoutMs: WAIT_MS, maxMemoryMb: 512 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'ECRASH' } });
    expect(outcome.ok ? '' : outcome.error.message).toContain('exited before it was ready');
  });

  it('fails the waiting call with ECRASH and is replaced, so the pool keeps its size', async () => {
    const { tools, started } = poolOf(() => new SilentProcess(), 30);
    const outcome = await tools.run({ callId: 'c1', tool: 'echo', module: 'builtin', input: {}, context: { workspace: '/', dryRun: false } }, { timeoutMs: WAIT_MS, maxMemoryMb: 512 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'ECRASH' } });
    expect(outcome.ok ? '' : outcome.error.message).toContain('did not start');
    expect(started[0]!.killed).toBe(true);
    // Its replacement starts once the killed process's exit is told.
    await waitUntil(() => started.length === 2, 'a second process');
    expect(tools.stats()).toMatchObject({ processes: 1, idle: 1 });
  });

  it('never hands the next call to the process it killed', async () => {
    const { tools, started } = poolOf(() => new SilentProcess(), 30);
    const request = { tool: 'echo', module: 'builtin', input: {}, context: { workspace: '/', dryRun: false } };
    await tools.run({ callId: 'c1', ...request }, { timeoutMs: WAIT_MS, maxMemoryMb: 512 });
    // The second call starts while the first process is still dying (its exit comes 5 ms after the kill).
    const second = await tools.run({ callId: 'c2', ...request }, { timeoutMs: WAIT_MS, maxMemoryMb: 512 });
    expect(second).toMatchObject({ ok: false, error: { code: 'ECRASH' } });
    expect(second.ok ? '' : second.error.message).toContain('did not start');
    expect(started.length).toBeGreaterThanOrEqual(2);
    expect(started[0]!.killed).toBe(true);
    expect(started.slice(1).some((process) => process.killed)).toBe(true);
  });
});
