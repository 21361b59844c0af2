import { utilityProcess, type UtilityProcess } from 'electron';
import { splitLines, type LineSplitter } from './lineSplitter';
import { processTree, signalAll } from './processTree';
import type { HostRequest } from './protocol';
import type { ToolProcess, ToolProcessExit, ToolProcessFactory, ToolProcessOptions } from './toolProcess';

/** How long close() lets a process end on its own before it kills it. */
export const CLOSE_GRACE_MS = 2_000;

type Listener<T> = { call: (value: T) => void };

/** Calls each listener; one that throws is reported and does not stop the others. */
function callEach<T>(listeners: Iterable<Listener<T>>, value: T): void {
  for (const listener of [...listeners]) {
    try {
      listener.call(value);
    } catch (error) {
      console.error(`[toolgate] a tool-process listener threw: ${(error as Error).message}`);
    }
  }
}

/**
 * One tool process on Electron's utilityProcess (desktop shell); owns its life from fork to exit,
 * with the same semantics as the child-process host: the first intent decides the exit reason
 * (kill → 'killed', close → 'closed', neither → 'crashed'); close() asks with child.kill() (SIGTERM
 * on POSIX) and SIGKILLs after CLOSE_GRACE_MS; messages after the end are dropped; every listener
 * runs at most once per event and cannot break the host.
 */
export class UtilityProcessHost implements ToolProcess {
  private readonly child: UtilityProcess;
  private readonly messageListeners = new Set<Listener<unknown>>();
  private readonly exitListeners = new Set<Listener<ToolProcessExit>>();
  private readonly timers: ReturnType<typeof setTimeout>[] = [];
  private exit: ToolProcessExit | undefined;
  /** Its stdout's and stderr's lines, each holding the line written so far. */
  private readonly lineSplitters: LineSplitter[] = [];
  private intent: 'kill' | 'close' | undefined;
  private forced = false;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: ToolProcessOptions) {
    this.child = utilityProcess.fork(options.entry, [], { serviceName: options.label, env: options.env, stdio: 'pipe' });
    this.child.on('message', (message: unknown) => {
      if (!this.exit) callEach(this.messageListeners, message);
    });
    this.child.on('exit', (code: number) => this.finish(code));
    // A kill or close before the process existed could not reach it: repeat it once it does.
    this.child.on('spawn', () => {
      if (this.forced) this.forceKill();
      else if (this.intent === 'close') this.askToEnd();
    });
    this.child.on('error', (type: string, location: string) => this.log('stderr', `utility process ${type} at ${location}`));
    for (const stream of ['stdout', 'stderr'] as const) {
      const output = this.child[stream];
      const toLines = splitLines((line) => this.log(stream, line));
      this.lineSplitters.push(toLines);
      output?.on('data', (chunk: Buffer) => {
        options.onOutputBytes?.(chunk.length);
        toLines(chunk);
      });
    }
  }

  /** OS process id, once spawned. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Posts a request to the process; dropped once it has exited or is being ended. */
  send(message: HostRequest): void {
    if (this.exit || this.intent) return;
    try {
      this.child.postMessage(message);
    } catch (error) {
      this.log('stderr', `message to ${this.options.label} dropped: ${(error as Error).message}`);
    }
  }

  /** Listens for raw messages from the process. */
  onMessage(listener: (message: unknown) => void): () => void {
    const entry: Listener<unknown> = { call: listener };
    this.messageListeners.add(entry);
    return () => this.messageListeners.delete(entry);
  }

  /** Listens for the end of the process; called once, even if it has already ended. */
  onExit(listener: (exit: ToolProcessExit) => void): () => void {
    const entry: Listener<ToolProcessExit> = { call: listener };
    this.exitListeners.add(entry);
    const ended = this.exit;
    if (ended) {
      queueMicrotask(() => {
        if (this.exitListeners.delete(entry)) callEach([entry], ended);
      });
    }
    return () => this.exitListeners.delete(entry);
  }

  /** Kills the process at once. Idempotent. */
  kill(): void {
    if (this.exit || this.forced) return;
    this.intent ??= 'kill';
    this.forceKill();
  }

  /** SIGTERM to the process and what it started, SIGKILL after `graceMs`; resolves once it has exited. */
  terminate(graceMs: number): Promise<'SIGTERM' | 'SIGKILL'> {
    if (this.exit) return Promise.resolve('SIGTERM');
    this.intent ??= 'kill';
    return new Promise((resolve) => {
      let ended: 'SIGTERM' | 'SIGKILL' = 'SIGTERM';
      const timer = setTimeout(() => {
        ended = 'SIGKILL';
        this.signalDescendants('SIGKILL');
        this.forceKill();
      }, graceMs);
      this.exitListeners.add({
        call: () => {
          clearTimeout(timer);
          resolve(ended);
        },
      });
      this.signalDescendants('SIGTERM');
      this.askToEnd();
    });
  }

  /** Electron places utility processes itself: no cgroup, so memory is bounded by sampling alone. */
  setMemoryLimit(): boolean {
    return false;
  }

  /** No cgroup, so no kernel memory events. */
  memoryEvents(): undefined {
    return undefined;
  }

  /** No cgroup, so no kernel task limit: the pool's sampling is the process limit. */
  forksRefused(): undefined {
    return undefined;
  }

  /** Kills what the process started that still runs (utilityProcess cannot reach re-parented ones). */
  endLogLines(): void {
    for (const splitter of this.lineSplitters) splitter.end();
  }

  killStrays(): void {
    this.signalDescendants('SIGKILL');
  }

  private signalDescendants(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid !== undefined) signalAll(processTree(pid).slice(1).reverse(), signal);
  }

  /** Asks the process to end, kills it after CLOSE_GRACE_MS; resolves once it has ended. Idempotent. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      if (this.exit) return resolve();
      this.intent ??= 'close';
      this.exitListeners.add({ call: () => resolve() });
      this.askToEnd();
      this.timers.push(
        setTimeout(() => {
          if (this.exit) return;
          this.kill();
          // A process that will not even die must not hold the gate's shutdown.
          this.timers.push(setTimeout(resolve, CLOSE_GRACE_MS));
        }, CLOSE_GRACE_MS),
      );
    });
    return this.closing;
  }

  private askToEnd(): void {
    try {
      this.child.kill();
    } catch {
      // Already gone.
    }
  }

  private forceKill(): void {
    this.forced = true;
    this.signalDescendants('SIGKILL');
    this.askToEnd();
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }

  private finish(code: number): void {
    if (this.exit) return;
    const exit: ToolProcessExit =
      this.intent === 'kill'
        ? { reason: 'killed' }
        : this.intent === 'close'
          ? { reason: 'closed' }
          : { reason: 'crashed', code, signal: null };
    this.exit = exit;
    for (const timer of this.timers.splice(0)) clearTimeout(timer);
    const listeners = [...this.exitListeners];
    this.exitListeners.clear();
    this.messageListeners.clear();
    callEach(listeners, exit);
  }

  private log(stream: 'stdout' | 'stderr', line: string): void {
    try {
      this.options.onLog?.(stream, line);
    } catch (error) {
      console.error(`[toolgate] onLog threw: ${(error as Error).message}`);
    }
  }
}

/** Starts a tool process in an Electron utility process (desktop shell). */
export const createUtilityProcessHost: ToolProcessFactory = (options) => new UtilityProcessHost(options);
