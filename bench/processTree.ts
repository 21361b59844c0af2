// What a server costs the machine, read from /proc: the CPU time and resident memory of a process
// and all its descendants (a gate's tool processes and upstream servers, a proxy's stdio children).
import { readdirSync, readFileSync } from 'node:fs';

/** Each process's parent, CPU time (ms) and resident memory (MB), from /proc (empty where there is none). */
function processTable(): { children: Map<number, number[]>; cpuMs: Map<number, number>; rssMb: Map<number, number> } {
  const ticks = 100; // USER_HZ: 100 on every Linux Node supports
  const pageMb = 4096 / 1024 / 1024;
  const children = new Map<number, number[]>();
  const cpuMs = new Map<number, number>();
  const rssMb = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return { children, cpuMs, rssMb };
  }
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): state(0) ppid(1) … utime(11) stime(12) … rss(21, pages).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      cpuMs.set(Number(entry), ((Number(fields[11]) + Number(fields[12])) / ticks) * 1000);
      rssMb.set(Number(entry), Number(fields[21]) * pageMb);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  return { children, cpuMs, rssMb };
}

/** The processes of a tree: `pid` and all its descendants, from one read of /proc. */
function treeOf(pid: number, table = processTable()): number[] {
  const members: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.pop()!;
    members.push(next);
    queue.push(...(table.children.get(next) ?? []));
  }
  return members;
}

/** The sum of `field` over a process and its descendants. */
function treeSum(pid: number, field: 'cpuMs' | 'rssMb'): number {
  const table = processTable();
  return treeOf(pid, table).reduce((sum, member) => sum + (table[field].get(member) ?? 0), 0);
}

/** CPU time (ms) a process and all its descendants have spent so far (0 where /proc is missing). */
export function treeCpuMs(pid: number): number {
  return treeSum(pid, 'cpuMs');
}

/**
 * The memory (MB) a process and all its descendants hold now, from one read of /proc: `rss`, each
 * process's RSS summed (pages shared between them, such as the Node binary's, counted once per
 * process), and `pss`, the sum of their proportional set sizes (a page shared by n processes counts
 * 1/n in each: each page once across the tree), from /proc/PID/smaps_rollup (0 where it is missing).
 * A tree of Node processes shares the Node binary's pages (about 50 MB), which the RSS sum counts again
 * for every process.
 */
export function treeMemoryMb(pid: number): { rss: number; pss: number } {
  const table = processTable();
  let rss = 0;
  let pssKib = 0;
  for (const member of treeOf(pid, table)) {
    rss += table.rssMb.get(member) ?? 0;
    try {
      pssKib += Number(/^Pss:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${member}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      // The process ended while we looked, or it is not ours to read.
    }
  }
  return { rss, pss: pssKib / 1024 };
}
