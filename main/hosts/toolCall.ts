import type { ToolError } from '../../shared/errors';
import type { SandboxRootView } from './sandboxRootView';
import type { ToolProcessOptions } from './toolProcess';

/** How a call in a tool process ended, and what it used. */
export type RunOutcome = ({ ok: true; data: unknown } | { ok: false; error: ToolError }) & {
  usage?: CallUsage;
  /** Its process ended while it served other calls too, none of them to blame: the pool runs it again alone. */
  runAlone?: true;
};

/** What one call's process tree used at its peak (sampled). */
export interface CallUsage {
  /** Highest resident memory of the whole tree seen, in bytes. */
  peakResidentBytes: number;
  /** Most processes seen in the tree at once. */
  peakProcesses: number;
}

/** The hard limits of one call. */
export interface CallLimits {
  /** Wall-clock deadline. */
  timeoutMs: number;
  /** Resident memory of the whole process tree, in MiB. */
  maxMemoryMb: number;
  /** The call runs only the gate's own code (runsOnlyGateCode): it starts no process and writes no log line, so no stray is looked for and no stderr end marker awaited after it. */
  startsNothing?: boolean;
  /**
   * The call starts nothing, changes nothing and ends soon (mayShareProcess): it may run in a process
   * serving other such calls at once, so calls from many agents wake one process rather than one
   * each. Should that process end under it, it is run again in one of its own.
   */
  mayShare?: boolean;
}

/** How the processes of one sandbox profile are started. */
export interface Isolation {
  /** Names the sandbox exactly: processes are reused only for calls whose key is the same. */
  key: string;
  /** The wrapper that makes the sandbox (bubblewrap); none runs the process bare. */
  wrapper?: ToolProcessOptions['wrapper'];
  /** The sandbox serves this one call: its process and all it started are killed when the call ends. */
  singleUse?: boolean;
  /** For a single-use sandbox: the isolation of the fresh one started in its place (worked out anew then). */
  successor?: () => Isolation;
  /** Why the call may not run in this sandbox at all (it is refused before a process is taken). */
  refusal?: ToolError;
  /**
   * Judges what the call left behind, once nothing of it runs any more (the protected-path rollback).
   * `sandboxRoot` is the root of a single-use sandbox as the gate saw it just before ending it.
   */
  afterCall?: (tool: string, outcome: RunOutcome, sandboxRoot?: SandboxRootView) => RunOutcome;
}
