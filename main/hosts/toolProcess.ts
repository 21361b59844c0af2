import type { CgroupSupport, MemoryEvents } from './cgroupLimits';
import type { HostRequest } from './protocol';

/** Why a tool process ended. */
export type ToolProcessExit =
  /** The gate killed it (deadline, shutdown). */
  | { reason: 'killed' }
  /** It died on its own: exited or was signalled. */
  | { reason: 'crashed'; code: number | null; signal: string | null }
  /** It exited cleanly after close(). */
  | { reason: 'closed' }
  /** The gate killed it for breaking the protocol's limits (an oversized or malformed message). */
  | { reason: 'refused'; detail: string };

/**
 * One isolated process that runs tool calls. Two implementations share this interface and the
 * protocol in protocol.ts: Electron's utilityProcess (desktop) and Node's child_process (headless).
 */
export interface ToolProcess {
  /** OS process id, once spawned. */
  readonly pid: number | undefined;
  /** Sends a message to the process (dropped once it has exited). */
  send(message: HostRequest): void;
  /** Listens for raw messages from the process (validate them: the process is untrusted). */
  onMessage(listener: (message: unknown) => void): () => void;
  /** Listens for the end of the process; called once. */
  onExit(listener: (exit: ToolProcessExit) => void): () => void;
  /** Kills the process and everything it started, at once. Idempotent. */
  kill(): void;
  /**
   * Asks the process and everything it started to stop (SIGTERM), then kills what is left after
   * `graceMs` (SIGKILL). Resolves once the process has exited, with the signal that ended it.
   */
  terminate(graceMs: number): Promise<'SIGTERM' | 'SIGKILL'>;
  /** Kills whatever the process started that is still running (called between calls). */
  killStrays(): void;
  /** Hands on the log lines the process left open, so the next call's first line does not finish one of its predecessor's. */
  endLogLines?(): void;
  /** Has the kernel hold the tree to `bytes` of memory from now on; false when it cannot (no cgroup). */
  setMemoryLimit(bytes: number): boolean;
  /** The kernel's OOM kills and peak memory for the tree, when it limits memory. */
  memoryEvents(): MemoryEvents | undefined;
  /** New processes and threads the kernel refused the tree at its task limit, when it holds one. */
  forksRefused(): number | undefined;
  /** Asks the process to end, kills it after a grace period. Idempotent. */
  close(): Promise<void>;
}

/** Options every host implementation takes. */
export interface ToolProcessOptions {
  /** Absolute path of the built tool-process entry (out/main/toolProcess.js). */
  entry: string;
  /** The environment the process starts from (already scrubbed by the caller). */
  env: Record<string, string>;
  /** A name for logs. */
  label: string;
  /** Called with each line the process writes to stdout or stderr (long lines are cut). */
  onLog?: (stream: 'stdout' | 'stderr', line: string) => void;
  /** Called with the size of each chunk the process writes to stdout or stderr, for output quotas. */
  onOutputBytes?: (bytes: number) => void;
  /** Runs the process inside this wrapper (bubblewrap): `command ...args -- node entry`. */
  wrapper?: {
    command: string;
    args: string[];
    /** Bytes the wrapper reads from descriptor 4 as it starts (bubblewrap's `--seccomp 4`). */
    seccompFilter?: Buffer;
  };
  /** The largest message the process may send, in bytes; a larger one kills it ('refused'). */
  maxMessageBytes?: number;
  /** A kernel limit on the processes of the tool's tree (a pids cgroup), where one can be made. */
  processLimit?: { cgroups: CgroupSupport; maxProcesses: number };
}

/** Starts a new tool process. */
export type ToolProcessFactory = (options: ToolProcessOptions) => ToolProcess;
