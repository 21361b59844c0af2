import { fork, type ChildProcess } from 'node:child_process';
import type { HostRequest } from './protocol';
import { splitLines } from './lineSplitter';
import type { ToolProcess, ToolProcessExit, ToolProcessFactory, ToolProcessOptions } from './toolProcess';

const CLOSE_GRACE_MS = 2000;

/**
 * A tool process as a Node child process (headless shell and tests). It leads its own process
 * group, so killing it kills everything it started too.
 */
class ChildProcessToolProcess implements ToolProcess {
  private readonly child: ChildProcess;
  private readonly messageListeners = new Set<(message: unknown) => void>();
  private readonly exitListeners = new Set<(exit: ToolProcessExit) => void>();
  private exit: ToolProcessExit | undefined;
  private intent: 'kill' | 'close' | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: ToolProcessOptions) {
    this.child = fork(options.entry, [], {
      env: options.env,
      detached: true,
      execArgv: [],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
    });
    const log = options.onLog;
    this.child.stdout?.on('data', log ? splitLines((line) => log('stdout', line)) : () => {});
    this.child.stderr?.on('data', log ? splitLines((line) => log('stderr', line)) : () => {});
    this.child.on('message', (message) => {
      for (const listener of [...this.messageListeners]) {
        try {
          listener(message);
        } catch {
          // a listener's failure must never take the gate down
        }
      }
    });
    this.child.on('error', () => this.kill());
    this.child.on('exit', (code, signal) => this.finish(code, signal));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  send(message: HostRequest): void {
    if (this.exit || !this.child.connected) return;
    try {
      this.child.send(message);
    } catch {
      this.kill();
    }
  }

  onMessage(listener: (message: unknown) => void): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  onExit(listener: (exit: ToolProcessExit) => void): () => void {
    if (this.exit) {
      const exit = this.exit;
      queueMicrotask(() => listener(exit));
      return () => {};
    }
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  kill(): void {
    if (this.exit) return;
    this.intent ??= 'kill';
    this.signalGroup('SIGKILL');
  }

  close(): Promise<void> {
    if (this.exit) return Promise.resolve();
    this.closing ??= new Promise<void>((resolve) => {
      this.intent ??= 'close';
      this.onExit(() => resolve());
      this.signalGroup('SIGTERM');
      setTimeout(() => this.signalGroup('SIGKILL'), CLOSE_GRACE_MS).unref();
    });
    return this.closing;
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      try {
        this.child.kill(signal);
      } catch {
        // already gone
      }
    }
  }

  private finish(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exit) return;
    this.exit =
      this.intent === 'kill' ? { reason: 'killed' } : this.intent === 'close' ? { reason: 'closed' } : { reason: 'crashed', code, signal };
    // Whatever the tool left behind in its group goes with it.
    this.signalGroup('SIGKILL');
    const listeners = [...this.exitListeners];
    this.exitListeners.clear();
    this.messageListeners.clear();
    for (const listener of listeners) {
      try {
        listener(this.exit);
      } catch {
        // a listener's failure must not stop the others
      }
    }
  }
}

/** Starts tool processes as Node child processes. */
export const createChildProcessHost: ToolProcessFactory = (options) => new ChildProcessToolProcess(options);
