import { GateError, type ToolError } from '../../shared/errors';
import { HostReplySchema, type RunRequest } from './protocol';
import type { ToolProcess, ToolProcessExit, ToolProcessFactory } from './toolProcess';

/** How a call in a tool process ended. */
export type RunOutcome = { ok: true; data: unknown } | { ok: false; error: ToolError };

/** Options of a pool of warm tool processes. */
export interface ToolProcessPoolOptions {
  /** Starts one process (child_process or utilityProcess). */
  factory: ToolProcessFactory;
  /** The built tool-process entry. */
  entry: string;
  /** The scrubbed environment tool processes start from. */
  env: Record<string, string>;
  /** How many warm processes to keep. */
  size: number;
  /** Calls that may wait for a free process before new ones get EQUOTA. */
  maxQueue: number;
  /** How long a new process may take to say it is ready. */
  startTimeoutMs?: number;
  /** Receives each line a tool process logs, with the call it was serving. */
  onLog?: (callId: string | undefined, stream: 'stdout' | 'stderr', line: string) => void;
}

interface Worker {
  readonly process: ToolProcess;
  readonly ready: Promise<void>;
  callId: string | undefined;
  exited: ToolProcessExit | undefined;
  /** Killed by the pool (deadline, bad message): never reused, even before its exit arrives. */
  retired: boolean;
}

/**
 * Warm tool processes, one call at a time each. A call past its deadline kills its process
 * (ETIMEOUT); a process that dies mid-call fails that call only (ECRASH); either way a fresh
 * process takes its place.
 */
export class ToolProcessPool {
  private readonly workers = new Set<Worker>();
  private readonly idle: Worker[] = [];
  private readonly waiting: Array<(worker: Worker) => void> = [];
  private closed = false;

  constructor(private readonly options: ToolProcessPoolOptions) {
    for (let i = 0; i < options.size; i++) this.idle.push(this.spawn());
  }

  /** Runs one call in a free process; never throws for the tool's sake, only when the pool is closed or full. */
  async run(request: Omit<RunRequest, 'type'>, timeoutMs: number): Promise<RunOutcome> {
    const worker = await this.acquire();
    try {
      return await this.runOn(worker, request, timeoutMs);
    } finally {
      this.release(worker);
    }
  }

  /** Counts for the console and benchmarks. */
  stats(): { processes: number; idle: number; queued: number } {
    return { processes: this.workers.size, idle: this.idle.length, queued: this.waiting.length };
  }

  /** Ends every process. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.workers].map((worker) => worker.process.close()));
  }

  private spawn(): Worker {
    const label = `toolgate-tool-${this.workers.size + 1}`;
    let worker!: Worker;
    const process = this.options.factory({
      entry: this.options.entry,
      env: this.options.env,
      label,
      onLog: (stream, line) => this.options.onLog?.(worker.callId, stream, line),
    });
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        worker.retired = true;
        process.kill();
        reject(new Error(`the tool process did not start within ${this.options.startTimeoutMs ?? 10_000} ms`));
      }, this.options.startTimeoutMs ?? 10_000);
      const stopListening = process.onMessage((message) => {
        if (HostReplySchema.safeParse(message).data?.type !== 'ready') return;
        clearTimeout(timer);
        stopListening();
        resolve();
      });
      process.onExit((exit) => {
        clearTimeout(timer);
        reject(new Error(`the tool process exited before it was ready (${describeExit(exit)})`));
      });
    });
    ready.catch(() => {});
    worker = { process, ready, callId: undefined, exited: undefined, retired: false };
    process.onExit((exit) => {
      worker.exited = exit;
      this.workers.delete(worker);
      // An idle process is replaced here; a busy or retired one is replaced when its call is released.
      const at = this.idle.indexOf(worker);
      if (at < 0) return;
      this.idle.splice(at, 1);
      if (!this.closed) this.idle.push(this.spawn());
    });
    this.workers.add(worker);
    return worker;
  }

  private acquire(): Promise<Worker> {
    if (this.closed) return Promise.reject(new GateError('ECRASH', 'the gate is shutting down; no tool can run'));
    const worker = this.idle.shift();
    if (worker) return Promise.resolve(worker);
    if (this.waiting.length >= this.options.maxQueue) {
      return Promise.reject(
        new GateError('EQUOTA', `${this.waiting.length} calls are already waiting for a tool process; try again shortly`),
      );
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(worker: Worker): void {
    worker.callId = undefined;
    const next = worker.exited || worker.retired ? (this.closed ? undefined : this.spawn()) : worker;
    if (!next) return;
    const waiter = this.waiting.shift();
    if (waiter) waiter(next);
    else this.idle.push(next);
  }

  private async runOn(worker: Worker, request: Omit<RunRequest, 'type'>, timeoutMs: number): Promise<RunOutcome> {
    worker.callId = request.callId;
    try {
      await worker.ready;
    } catch (error) {
      return { ok: false, error: { code: 'ECRASH', message: (error as Error).message } };
    }
    const { process } = worker;
    return new Promise<RunOutcome>((resolve) => {
      const startedAt = performance.now();
      let settled = false;
      const settle = (outcome: RunOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        stopMessages();
        stopExit();
        resolve(outcome);
      };
      const timer = setTimeout(() => {
        worker.retired = true;
        process.kill();
        const ranMs = Math.round(performance.now() - startedAt);
        settle({
          ok: false,
          error: {
            code: 'ETIMEOUT',
            message: `${request.tool} ran past its ${timeoutMs} ms deadline and was killed`,
            details: { timeoutMs, ranMs },
          },
        });
      }, timeoutMs);
      const stopMessages = process.onMessage((message) => {
        const reply = HostReplySchema.safeParse(message);
        if (!reply.success) {
          worker.retired = true;
          process.kill();
          settle({ ok: false, error: { code: 'ECRASH', message: `${request.tool}'s process sent a malformed message and was killed` } });
          return;
        }
        if (reply.data.type !== 'result' || reply.data.callId !== request.callId) return;
        settle(reply.data.ok ? { ok: true, data: reply.data.data } : { ok: false, error: reply.data.error });
      });
      const stopExit = process.onExit((exit) => {
        settle({
          ok: false,
          error: { code: 'ECRASH', message: `${request.tool}'s process died mid-call (${describeExit(exit)})`, details: exit },
        });
      });
      process.send({ type: 'run', ...request });
    });
  }
}

function describeExit(exit: ToolProcessExit): string {
  if (exit.reason !== 'crashed') return exit.reason;
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}
