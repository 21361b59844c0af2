import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Kernel-enforced process limits for tool processes: a cgroup with `pids.max`, so a fork bomb hits a
 * wall at once instead of filling the machine's process table between two samples. Works with a
 * cgroup v1 `pids` hierarchy or a cgroup v2 one that delegates `pids`, wherever the gate may create a
 * child cgroup (root, or a delegated systemd scope); elsewhere the pool's sampling is the only guard.
 */

/** Where tool processes' cgroups are made, or why they cannot be. */
export type CgroupSupport = { kind: 'v1' | 'v2'; parent: string } | { kind: 'none'; reason: string };

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Mount points of cgroup filesystems, by controller (v1) or 'unified' (v2). */
function cgroupMounts(): { v1: Map<string, string>; v2: string | undefined } {
  const v1 = new Map<string, string>();
  let v2: string | undefined;
  for (const line of (read('/proc/self/mountinfo') ?? '').split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const mountPoint = before.split(' ')[4];
    const [fsType, , superOptions] = after.split(' ');
    if (!mountPoint) continue;
    if (fsType === 'cgroup2') v2 ??= mountPoint;
    if (fsType === 'cgroup') for (const option of (superOptions ?? '').split(',')) v1.set(option, mountPoint);
  }
  return { v1, v2 };
}

/** Finds a cgroup under which the gate can make tool-process cgroups with a pids limit. */
export function detectCgroups(): CgroupSupport {
  if (process.platform !== 'linux') return { kind: 'none', reason: 'cgroups need Linux' };
  const membership = (read('/proc/self/cgroup') ?? '').split('\n');
  const mounts = cgroupMounts();
  const v1Path = membership.map((line) => line.split(':')).find(([, controllers]) => controllers?.split(',').includes('pids'))?.[2];
  const v1Mount = mounts.v1.get('pids');
  if (v1Path !== undefined && v1Mount) {
    const parent = join(v1Mount, v1Path);
    if (canCreateChild(parent)) return { kind: 'v1', parent };
  }
  const v2Path = membership.find((line) => line.startsWith('0::'))?.slice(3);
  if (v2Path !== undefined && mounts.v2) {
    const parent = join(mounts.v2, v2Path);
    if ((read(join(parent, 'cgroup.subtree_control')) ?? '').split(/\s+/).includes('pids') && canCreateChild(parent)) {
      return { kind: 'v2', parent };
    }
  }
  return { kind: 'none', reason: 'no cgroup with the pids controller can be created here' };
}

/** Removes the empty cgroups of gates that are gone (a gate that exits leaves its last ones behind). */
function sweepStale(parent: string): void {
  let entries: string[];
  try {
    entries = readdirSync(parent);
  } catch {
    return;
  }
  for (const entry of entries) {
    const owner = /^toolgate-(\d+)-\d+$/.exec(entry)?.[1];
    if (!owner || isAlive(Number(owner))) continue;
    try {
      rmdirSync(join(parent, entry));
    } catch {
      // not empty yet, or not ours to remove
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function canCreateChild(parent: string): boolean {
  sweepStale(parent);
  const probe = join(parent, `toolgate-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    const usable = read(join(probe, 'pids.max')) !== undefined;
    rmdirSync(probe);
    return usable;
  } catch {
    return false;
  }
}

let made = 0;

/** One tool process's cgroup: created before it runs tool code, removed once it has exited. */
export class ProcessCgroup {
  private readonly path: string;
  private alive = true;

  private constructor(path: string) {
    this.path = path;
  }

  /** Makes a cgroup allowing at most `maxProcesses` processes, or nothing when that is not possible. */
  static create(support: CgroupSupport, maxProcesses: number): ProcessCgroup | undefined {
    if (support.kind === 'none') return undefined;
    const path = join(support.parent, `toolgate-${process.pid}-${++made}`);
    try {
      mkdirSync(path);
      writeFileSync(join(path, 'pids.max'), String(maxProcesses));
      return new ProcessCgroup(path);
    } catch {
      return undefined;
    }
  }

  /** Moves processes in (children they fork later stay in). Returns false when a move failed. */
  adopt(pids: readonly number[]): boolean {
    let moved = true;
    for (const pid of pids) {
      try {
        appendFileSync(join(this.path, 'cgroup.procs'), `${pid}\n`);
      } catch {
        moved = false;
      }
    }
    return moved;
  }

  /** Processes in the cgroup now. */
  members(): number[] {
    return (read(join(this.path, 'cgroup.procs')) ?? '').split('\n').filter(Boolean).map(Number);
  }

  /** Removes the cgroup once its processes are gone (retries briefly while the kernel reaps them). */
  remove(attempt = 0): void {
    if (!this.alive) return;
    try {
      rmdirSync(this.path);
      this.alive = false;
    } catch {
      if (attempt < 20) setTimeout(() => this.remove(attempt + 1), 50).unref();
    }
  }
}
