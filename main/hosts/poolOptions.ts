import type { CgroupSupport } from './cgroupLimits';
import type { SandboxProfile } from './sandbox';
import type { SparePolicy } from './spareDemand';
import type { Isolation } from './toolCall';
import type { ToolProcessFactory } from './toolProcess';

/** Options of a pool of warm tool processes. */
export interface ToolProcessPoolOptions {
  /** Starts one process (child_process or utilityProcess). */
  factory: ToolProcessFactory;
  /** The built tool-process entry. */
  entry: string;
  /** The scrubbed environment tool processes start from. */
  env: Record<string, string>;
  /** How many processes may exist at once. */
  size: number;
  /** Calls that may wait for a free process before new ones get EQUOTA. */
  maxQueue: number;
  /** How a profile's processes are isolated; all run bare with one key when absent. */
  isolate?: (profile: SandboxProfile) => Isolation;
  /** The profile of the processes started ahead of any call. */
  warmProfile?: SandboxProfile;
  /**
   * Whether the first process starts with the pool (the default) or waits for warm(): a gate starts
   * it when an agent first reaches it, so a gate no agent uses holds no tool process.
   */
  warmAtStart?: boolean;
  /**
   * Spare processes kept ready beyond `size`, for the profiles calls use (or are about to: see
   * expect): a call of such a profile finds its sandbox started instead of waiting for one.
   */
  spares?: SparePolicy;
  /** How long a new process may take to say it is ready. */
  startTimeoutMs?: number;
  /** Receives each piece of output a running call streams (context.emit), unredacted. */
  onOutput?: (callId: string, chunk: string) => void;
  /** Receives each line a tool process logs, with the call it was serving. */
  onLog?: (callId: string | undefined, stream: 'stdout' | 'stderr', line: string) => void;
  /** Bytes of stdout and stderr one call may write before it is killed (EQUOTA). */
  maxLogBytesPerCall?: number;
  /** Bytes one message from a tool process may have before it is killed (EQUOTA). */
  maxMessageBytes?: number;
  /** Processes one call's tree may hold at once before it is killed (EQUOTA): fork bombs stop here. */
  maxProcesses?: number;
  /** Where the kernel can enforce maxProcesses (a pids cgroup per process); sampling alone otherwise. */
  cgroups?: CgroupSupport;
  /** Between SIGTERM and SIGKILL at a deadline. */
  terminateGraceMs?: number;
  /** How often a running call's tree is sampled for memory and processes. */
  sampleIntervalMs?: number;
}

/** The profile of calls that neither write nor use the network. */
export const READ_ONLY_PROFILE: SandboxProfile = { writeWorkspace: false, network: false, spawnsProcesses: false };
