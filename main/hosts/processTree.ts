import { readdirSync, readFileSync } from 'node:fs';

/**
 * A process and everything it started, read from /proc (Linux). On systems without /proc the tree is
 * just the root process, and sampling reports nothing: limits then rest on the deadline alone.
 */

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Direct children of a process, across all its threads. */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const task of tasks) {
    const listed = readProc(`/proc/${pid}/task/${task}/children`);
    if (!listed) continue;
    for (const field of listed.split(' ')) if (field) children.push(Number(field));
  }
  return children;
}

/** The root and all its descendants, parents before children. Stops at `limit` processes. */
export function processTree(root: number, limit = 100_000): number[] {
  const seen = new Set<number>([root]);
  const order = [root];
  for (let i = 0; i < order.length && order.length < limit; i++) {
    for (const child of childrenOf(order[i]!)) {
      if (seen.has(child)) continue;
      seen.add(child);
      order.push(child);
    }
  }
  return order;
}

/** Resident memory of one process in bytes (VmRSS), 0 when it is gone. */
export function residentBytes(pid: number): number {
  const status = readProc(`/proc/${pid}/status`);
  const match = status && /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/** What a tree uses right now. */
export interface TreeSample {
  /** Processes in the tree, the root included. */
  processes: number;
  /** Sum of their resident memory, in bytes (Buffers and native memory included). */
  residentBytes: number;
}

/** Samples a process tree's size and resident memory. */
export function sampleTree(root: number, processLimit = 100_000): TreeSample {
  const pids = processTree(root, processLimit);
  let bytes = 0;
  for (const pid of pids) bytes += residentBytes(pid);
  return { processes: pids.length, residentBytes: bytes };
}

/** The short command name of a process (its comm), undefined when it is gone. */
export function commandName(pid: number): string | undefined {
  return readProc(`/proc/${pid}/comm`)?.trim();
}

/**
 * The id the kernel gave the newest process or thread on the machine (the last field of
 * /proc/loadavg), undefined where it cannot be read. Unchanged between two readings means nothing
 * at all was started in between.
 */
export function newestProcessId(): number | undefined {
  const loadavg = readProc('/proc/loadavg');
  const newest = loadavg === undefined ? Number.NaN : Number(loadavg.trim().split(' ').pop());
  return Number.isSafeInteger(newest) ? newest : undefined;
}

/** Processes whose process group is `pgid` (found by scanning /proc). */
export function processGroupMembers(pgid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProc(`/proc/${entry}/stat`);
    if (!stat) continue;
    // Fields after the parenthesised command: state ppid pgrp …
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid) members.push(Number(entry));
  }
  return members;
}

/** Sends a signal to each process; ones already gone are skipped. */
export function signalAll(pids: Iterable<number>, signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone, or not ours
    }
  }
}
