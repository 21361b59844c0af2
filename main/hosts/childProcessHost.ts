import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { ProcessCgroup, type MemoryEvents } from './cgroupLimits';
import { createFrameReader, createFrameWriter } from './frames';
import type { HostRequest } from './protocol';
import { splitLines, type LineSplitter } from './lineSplitter';
import { commandName, newestProcessId, processGroupMembers, processTree, signalAll } from './processTree';
import type { ToolProcess, ToolProcessExit, ToolProcessFactory, ToolProcessOptions } from './toolProcess';

const CLOSE_GRACE_MS = 2000;

/** The largest message a tool process may send unless the pool says otherwise. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * A tool process as a Node child process, optionally inside bubblewrap. It leads its own process
 * group; messages travel as length-checked frames on a private pipe (fd 3), never through Node's
 * own IPC, which would buffer whatever a hostile process sends.
 */
class ChildProcessToolProcess implements ToolProcess {
  private readonly child: ChildProcess;
  private readonly channel: Writable & Readable;
  private readonly messageListeners = new Set<(message: unknown) => void>();
  private readonly exitListeners = new Set<(exit: ToolProcessExit) => void>();
  private exit: ToolProcessExit | undefined;
  private intent: ToolProcessExit | undefined;
  private closing: Promise<void> | undefined;
  /** close()'s SIGKILL after its grace, cleared when the process exits first. */
  private closeTimer: NodeJS.Timeout | undefined;
  /** Processes that are the host itself (bubblewrap and the tool process), spared by killStrays. */
  private core: Set<number> | undefined;
  /** Whether the tool process said it is ready: before that, no tool code has run in it. */
  private saidReady = false;
  /** The kernel's process limit for the tree, when a cgroup could be made. */
  private readonly cgroup: ProcessCgroup | undefined;
  /** The machine's newest process id when the gate last sent a request (see killStrays). */
  private newestAtRequest: number | undefined;
  /** Its stdout's and stderr's lines, each holding the line written so far. */
  private readonly lineSplitters: LineSplitter[] = [];
  /** Encodes and writes one request to the channel. */
  private readonly sendFrame: (message: HostRequest) => void;

  constructor(private readonly options: ToolProcessOptions) {
    const limit = options.processLimit;
    // pids.max counts threads, and a Node process alone runs about a dozen: the kernel's wall stands
    // well above the pool's process limit (which ends the call) yet far below the machine's.
    this.cgroup = limit ? ProcessCgroup.create(limit.cgroups, limit.maxProcesses * 4 + 32) : undefined;
    // A regex that would backtrack exponentially in tool code (an agent's search pattern) falls back
    // to V8's linear-time engine instead of holding the process until its deadline. A young
    // generation of 2 MB: a tool process handles one call at a time, and the default (up to 16 MB
    // per semi-space) grew each warm process by about 11 MB under load without serving it faster.
    const node = [process.execPath, '--enable-experimental-regexp-engine-on-excessive-backtracks', '--max-semi-space-size=2', options.entry];
    const inner = options.wrapper ? [options.wrapper.command, ...options.wrapper.args, '--', ...node] : node;
    const [command = process.execPath, ...args] = this.cgroup ? [...enterCgroups(this.cgroup.procsFiles()), ...inner] : inner;
    // Inside Electron, process.execPath is Electron itself: it runs the entry as Node only when told to
    // (the tool process drops the variable before any tool code runs).
    const env = process.versions.electron ? { ...options.env, ELECTRON_RUN_AS_NODE: '1' } : options.env;
    const filter = options.wrapper?.seccompFilter;
    const stdio: Array<'ignore' | 'pipe'> = ['ignore', 'pipe', 'pipe', 'pipe', ...(filter ? (['pipe'] as const) : [])];
    this.child = spawn(command, args, { env, detached: true, stdio });
    this.channel = this.child.stdio[3] as Writable & Readable;
    const channel = this.channel;
    this.sendFrame = createFrameWriter((frame, sent) => channel.write(frame, sent));
    if (filter) {
      // Descriptor 4: bubblewrap reads the seccomp program to its end before it starts the tool.
      const seccompPipe = this.child.stdio[4] as Writable;
      seccompPipe.on('error', () => {});
      seccompPipe.end(filter);
    }

    const log = options.onLog;
    for (const stream of ['stdout', 'stderr'] as const) {
      const toLines = log ? splitLines((line) => log(stream, line)) : undefined;
      if (toLines) this.lineSplitters.push(toLines);
      this.child[stream]?.on('data', (chunk: Buffer) => {
        options.onOutputBytes?.(chunk.length);
        toLines?.(chunk);
      });
    }
    const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.channel.on(
      'data',
      createFrameReader(maxBytes, {
        onMessage: (message) => this.deliver(message),
        onViolation: (violation) => {
          const detail =
            violation.kind === 'oversize'
              ? `it sent a ${violation.bytes}-byte message, more than the ${maxBytes} bytes a tool process may send`
              : `it sent a message that is not JSON (${violation.detail})`;
          this.intent ??= { reason: 'refused', detail };
          this.kill();
        },
      }),
    );
    this.channel.on('error', () => {});
    // A process that could not be started (ENOENT, EAGAIN) never emits 'exit': end it here.
    this.child.on('error', () => (this.child.pid === undefined ? this.finish(null, null) : this.kill()));
    this.child.on('exit', (code, signal) => {
      this.killLeftovers();
      // Its last words may still be in the stderr pipe (why it could not start, say): the exit is
      // reported once the pipes are drained, or 100 ms later if something still holds them.
      const timer = setTimeout(() => this.finish(code, signal), 100);
      this.child.once('close', () => {
        clearTimeout(timer);
        this.finish(code, signal);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  send(message: HostRequest): void {
    if (this.exit) return;
    // With a cgroup, killStrays asks it who is left instead (see there). A call of the gate's own
    // code starts nothing and is not looked after: no /proc read for it (a later killStrays without
    // the mark walks the tree).
    if (!this.cgroup) this.newestAtRequest = message.type === 'run' && message.startsNothing === true ? undefined : newestProcessId();
    try {
      this.sendFrame(message);
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
    this.intent ??= { reason: 'killed' };
    this.signalTree('SIGKILL');
  }

  terminate(graceMs: number): Promise<'SIGTERM' | 'SIGKILL'> {
    if (this.exit) return Promise.resolve('SIGTERM');
    this.intent ??= { reason: 'killed' };
    return new Promise((resolve) => {
      let ended: 'SIGTERM' | 'SIGKILL' = 'SIGTERM';
      const timer = setTimeout(() => {
        ended = 'SIGKILL';
        this.signalTree('SIGKILL');
      }, graceMs);
      this.onExit(() => {
        clearTimeout(timer);
        resolve(ended);
      });
      this.signalTree('SIGTERM');
    });
  }

  endLogLines(): void {
    for (const splitter of this.lineSplitters) splitter.end();
  }

  killStrays(): void {
    const root = this.child.pid;
    if (root === undefined || this.exit) return;
    this.core ??= new Set(this.wrapped() ? processTree(root) : [root]);
    const core = this.core;
    // When the call left nothing behind, the walks below, which read /proc entries by the dozen, are
    // skipped. With a cgroup, it holds the whole tree however it was started (re-parented, after
    // setsid): its members all the host itself, read in one file. Without one, the machine started
    // no process or thread at all since the request was sent (its newest process id is the same, and
    // ids of processes in a sandbox's namespace are drawn from it too).
    if (this.cgroup) {
      const members = this.cgroup.members();
      if (members.length > 0 && members.every((pid) => core.has(pid))) return;
    } else if (this.newestAtRequest !== undefined && newestProcessId() === this.newestAtRequest) return;
    const strays = processTree(root).filter((pid) => !core.has(pid));
    // Unsandboxed, a background child whose parent exited is re-parented out of the tree but stays
    // in the process group (or only in the cgroup, after setsid); sandboxed, it stays under bubblewrap.
    if (!this.wrapped()) strays.push(...this.outsideTree(root).filter((pid) => !core.has(pid)));
    signalAll(strays, 'SIGKILL');
  }

  setMemoryLimit(bytes: number): boolean {
    return this.cgroup?.setMemoryLimit(bytes) ?? false;
  }

  memoryEvents(): MemoryEvents | undefined {
    return this.cgroup?.memoryEvents();
  }

  forksRefused(): number | undefined {
    return this.cgroup?.forksRefused();
  }

  close(): Promise<void> {
    if (this.exit) return Promise.resolve();
    this.closing ??= new Promise<void>((resolve) => {
      this.intent ??= { reason: 'closed' };
      this.onExit(() => resolve());
      // Before it said it is ready no tool code has run in it, so there is nothing to let end on its
      // own; and inside bubblewrap a SIGTERM would find none of the tool's processes yet (the sandbox
      // still being set up), so closing would wait out the whole grace. It is killed at once.
      if (!this.saidReady) return this.signalTree('SIGKILL');
      this.signalTree('SIGTERM');
      this.closeTimer = setTimeout(() => this.signalTree('SIGKILL'), CLOSE_GRACE_MS).unref();
    });
    return this.closing;
  }

  /** Remembers which processes are the host itself once the tool process says it is ready. */
  private deliver(message: unknown): void {
    if (this.exit) return;
    const ready = (message as { type?: unknown } | null)?.type === 'ready';
    if (ready) this.saidReady = true;
    if (ready && !this.core && this.child.pid !== undefined) {
      // No tool code has run yet: whatever the wrapper forked before the first move joins the cgroup now.
      const tree = processTree(this.child.pid);
      this.cgroup?.adopt(tree);
      this.core = new Set(this.wrapped() ? tree : [this.child.pid]);
    }
    for (const listener of [...this.messageListeners]) {
      try {
        listener(message);
      } catch {
        // a listener's failure must never take the gate down
      }
    }
  }

  private wrapped(): boolean {
    return this.options.wrapper !== undefined;
  }

  /**
   * Signals the whole tree: every descendant found in /proc and the process group. Inside
   * bubblewrap, SIGTERM goes to the tool's processes only (bubblewrap would die at once and take
   * them with it, leaving no grace); SIGKILL to bubblewrap ends the sandbox's pid namespace whole.
   */
  private signalTree(signal: NodeJS.Signals): void {
    const root = this.child.pid;
    // Once it has exited its pid is free for the machine's next process: whatever it left behind was
    // signalled through its group and cgroup at the exit (killLeftovers), never by that pid again.
    if (root === undefined || this.child.exitCode !== null || this.child.signalCode !== null) return;
    if (signal === 'SIGKILL') {
      // Root first: bubblewrap's death ends its pid namespace whole, and a growing tree (a fork bomb)
      // must not be walked before anything is killed.
      signalAll([root], signal);
      signalGroup(root, signal);
      if (this.cgroup) signalAll(this.cgroup.members(), signal);
      signalAll(processTree(root), signal);
      return;
    }
    const tree = processTree(root);
    const targets = this.wrapped() ? tree.filter((pid) => commandName(pid) !== 'bwrap') : tree;
    signalAll(targets.reverse(), signal);
    if (!this.wrapped()) {
      signalGroup(root, signal);
      if (this.cgroup) signalAll(this.cgroup.members(), signal);
    }
  }

  /** Processes of this tool that left its tree: its cgroup's members, or else its process group's. */
  private outsideTree(root: number): number[] {
    return this.cgroup ? this.cgroup.members() : processGroupMembers(root);
  }

  /** Once it has exited, whatever the tool left behind in its group or its cgroup goes with it. */
  private killLeftovers(): void {
    if (this.child.pid !== undefined) signalGroup(this.child.pid, 'SIGKILL');
    if (this.cgroup) signalAll(this.cgroup.members(), 'SIGKILL');
  }

  private finish(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exit) return;
    this.exit = this.intent ?? { reason: 'crashed', code, signal };
    clearTimeout(this.closeTimer);
    this.killLeftovers();
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
    // Only now: the listeners read the cgroup's memory events (was it the kernel's OOM kill?).
    this.cgroup?.remove();
  }
}

/**
 * A command prefix that puts itself into the given cgroups, then execs the rest: everything the
 * tool process allocates, from its first page, is charged there. A failed move only leaves the
 * adoption at 'ready' to do it.
 */
function enterCgroups(procsFiles: string[]): string[] {
  const script = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ 2>/dev/null >"$1"; shift; n=$((n-1)); done; exec "$@"';
  return ['/bin/sh', '-c', script, 'toolgate-cgroup', String(procsFiles.length), ...procsFiles];
}

/** Signals a process group led by `leader` (never the gate's own group). */
function signalGroup(leader: number, signal: NodeJS.Signals): void {
  if (leader <= 1) return;
  try {
    process.kill(-leader, signal);
  } catch {
    // the group is gone already
  }
}

/** Starts tool processes as Node child processes. */
export const createChildProcessHost: ToolProcessFactory = (options) => new ChildProcessToolProcess(options);
