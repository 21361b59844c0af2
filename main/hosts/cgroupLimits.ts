import { appendFileSync, closeSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Kernel-enforced limits for tool processes, in a cgroup of their own: `pids.max`, so a fork bomb
 * hits a wall at once instead of filling the machine's process table between two samples, and a
 * memory limit (`memory.max`, or `memory.limit_in_bytes` on cgroup v1), so a balloon stops at its
 * bound rather than at the next sample. Works wherever the gate may create a child cgroup (root,
 * or a delegated systemd scope); elsewhere the pool's sampling is the only guard, and says so.
 */

/** Where one controller's cgroups are made. */
export interface CgroupPlace {
  /** cgroup v1 (one hierarchy per controller) or v2 (one unified hierarchy). */
  version: 1 | 2;
  /** The folder new cgroups are made in. */
  parent: string;
}

/** Which kernel limits the gate can set for tool processes here. */
export interface CgroupSupport {
  /** A pids limit (fork bombs). */
  pids?: CgroupPlace;
  /** A memory limit (balloons). */
  memory?: CgroupPlace;
  /** Why a controller is missing, for the console and logs. */
  missing?: string;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Where memory events files are read into: a few lines of ASCII (v1's memory.oom_control, v2's memory.events). */
const eventsBuffer = Buffer.alloc(1024);

/** Mount points of cgroup filesystems: v1 by controller, and the v2 one. */
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

/** Finds, per controller, a cgroup under which the gate can make tool-process cgroups. */
export function detectCgroups(): CgroupSupport {
  if (process.platform !== 'linux') return { missing: 'cgroups need Linux' };
  const membership = (read('/proc/self/cgroup') ?? '').split('\n').map((line) => line.split(':'));
  const mounts = cgroupMounts();
  const place = (controller: 'pids' | 'memory', probeFile: string): CgroupPlace | undefined => {
    const v1Path = membership.find(([, controllers]) => controllers?.split(',').includes(controller))?.[2];
    const v1Mount = mounts.v1.get(controller);
    if (v1Path !== undefined && v1Mount && canCreateChild(join(v1Mount, v1Path), probeFile)) {
      return { version: 1, parent: join(v1Mount, v1Path) };
    }
    const v2Path = membership.find(([id, controllers]) => id === '0' && controllers === '')?.[2];
    if (v2Path !== undefined && mounts.v2) {
      const parent = join(mounts.v2, v2Path);
      const delegated = (read(join(parent, 'cgroup.subtree_control')) ?? '').split(/\s+/).includes(controller);
      if (delegated && canCreateChild(parent, probeFile)) return { version: 2, parent };
    }
    return undefined;
  };
  const pids = place('pids', 'pids.max');
  const memory = place('memory', 'memory.max') ?? place('memory', 'memory.limit_in_bytes');
  const absent = [pids ? undefined : 'pids', memory ? undefined : 'memory'].filter(Boolean);
  return {
    ...(pids ? { pids } : {}),
    ...(memory ? { memory } : {}),
    ...(absent.length > 0 ? { missing: `no cgroup with the ${absent.join(' and ')} controller can be created here` } : {}),
  };
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

function canCreateChild(parent: string, probeFile: string): boolean {
  sweepStale(parent);
  const probe = join(parent, `toolgate-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    const usable = read(join(probe, probeFile)) !== undefined;
    rmdirSync(probe);
    return usable;
  } catch {
    return false;
  }
}

/** What the kernel saw of a cgroup's memory. */
export interface MemoryEvents {
  /** Processes the kernel killed for passing the limit, since the cgroup was made. */
  oomKills: number;
  /** Highest memory charged to the cgroup since it was made, in bytes. */
  peakBytes: number;
}

let made = 0;

/** One tool process's cgroups (one per v1 hierarchy, or one in v2): made before it runs tool code, removed once it has exited. */
export class ProcessCgroup {
  private readonly folders = new Map<'pids' | 'memory', { version: 1 | 2; path: string }>();
  private removed = false;
  /** Set once remove() is called: the cgroup's files are not opened again. */
  private removing = false;
  /** The memory limit last written, to skip writing it again. */
  private memoryLimit: number | undefined;
  /**
   * The events files (memory's, pids'), each open for the cgroup's life: read again from its start
   * (pread), which costs a sixth of opening it each time. The kernel writes such a file anew on each
   * read from offset 0 (cgroup.procs on v1 keeps its list for a while, so it is not read so).
   */
  private readonly eventsFiles = new Map<string, number>();

  private constructor() {}

  /** Makes the cgroups allowing at most `maxTasks` tasks, or nothing when no controller can be had. */
  static create(support: CgroupSupport, maxTasks: number): ProcessCgroup | undefined {
    const cgroup = new ProcessCgroup();
    const name = `toolgate-${process.pid}-${++made}`;
    for (const controller of ['pids', 'memory'] as const) {
      const place = support[controller];
      if (!place) continue;
      const path = join(place.parent, name);
      try {
        // In v2 one folder serves both controllers.
        if (![...cgroup.folders.values()].some((folder) => folder.path === path)) mkdirSync(path);
        if (controller === 'pids') writeFileSync(join(path, 'pids.max'), String(maxTasks));
        cgroup.folders.set(controller, { version: place.version, path });
      } catch {
        // this controller is not to be had; the other may be
      }
    }
    return cgroup.folders.size > 0 ? cgroup : undefined;
  }

  /** Whether the kernel enforces a memory limit for this process. */
  get limitsMemory(): boolean {
    return this.folders.has('memory');
  }

  /** Moves processes in (children they fork later stay in). Returns false when a move failed. */
  adopt(pids: readonly number[]): boolean {
    let moved = true;
    for (const path of this.paths()) {
      for (const pid of pids) {
        try {
          appendFileSync(join(path, 'cgroup.procs'), `${pid}\n`);
        } catch {
          moved = false;
        }
      }
    }
    return moved;
  }

  /**
   * The `cgroup.procs` files a process writes its own pid to, so that it runs inside the cgroups
   * before it starts what it execs: memory is charged to a cgroup from the moment it is allocated
   * there, never for what came before a move.
   */
  procsFiles(): string[] {
    return this.paths().map((path) => join(path, 'cgroup.procs'));
  }

  /** Sets the memory limit for the next call; false when the kernel refused (usage above it already). */
  setMemoryLimit(bytes: number): boolean {
    const memory = this.folders.get('memory');
    if (!memory) return false;
    // Calls of one tool in a row keep the same limit: no write on the hot path.
    if (this.memoryLimit === bytes) return true;
    try {
      writeFileSync(join(memory.path, memory.version === 2 ? 'memory.max' : 'memory.limit_in_bytes'), String(bytes));
      this.memoryLimit = bytes;
      return true;
    } catch {
      this.memoryLimit = undefined;
      return false;
    }
  }

  /** OOM kills and peak memory so far, when the kernel limits memory here. */
  memoryEvents(): MemoryEvents | undefined {
    const memory = this.folders.get('memory');
    if (!memory) return undefined;
    const events = this.readEvents(join(memory.path, memory.version === 2 ? 'memory.events' : 'memory.oom_control')) ?? '';
    const oomKills = Number(/^oom_kill (\d+)/m.exec(events)?.[1] ?? 0);
    const peakFile = join(memory.path, memory.version === 2 ? 'memory.peak' : 'memory.max_usage_in_bytes');
    // Read only when asked: every call checks for OOM kills, few need the peak.
    return {
      oomKills,
      get peakBytes() {
        return Number(read(peakFile)?.trim() ?? 0) || 0;
      },
    };
  }

  /**
   * How many times the kernel refused the tree a new process or thread at its task limit (pids.max),
   * since the cgroup was made; undefined without a pids cgroup. A fork bomb that hits the wall and
   * dies out between two samples leaves this behind.
   */
  forksRefused(): number | undefined {
    const pids = this.folders.get('pids');
    if (!pids) return undefined;
    const events = this.readEvents(join(pids.path, 'pids.events'));
    return events === undefined ? undefined : Number(/^max (\d+)/m.exec(events)?.[1] ?? 0);
  }

  /** An events file's text now, or undefined when it cannot be read. */
  private readEvents(path: string): string | undefined {
    if (this.removing) return undefined;
    try {
      let fd = this.eventsFiles.get(path);
      if (fd === undefined) this.eventsFiles.set(path, (fd = openSync(path, 'r')));
      const bytes = readSync(fd, eventsBuffer, 0, eventsBuffer.length, 0);
      return eventsBuffer.toString('latin1', 0, bytes);
    } catch {
      return undefined;
    }
  }

  /** Processes in the cgroup now. */
  members(): number[] {
    const path = this.paths()[0];
    if (!path) return [];
    // Opened afresh each time: cgroup v1 keeps an open cgroup.procs file's list, so a descriptor
    // kept open would name the processes of an earlier read and miss one the call started.
    return (read(join(path, 'cgroup.procs')) ?? '').split('\n').filter(Boolean).map(Number);
  }

  /** Removes the cgroups once their processes are gone (retries briefly while the kernel reaps them). */
  remove(attempt = 0): void {
    if (this.removed) return;
    this.removing = true;
    for (const fd of this.eventsFiles.values()) closeSync(fd);
    this.eventsFiles.clear();
    let left = false;
    for (const path of this.paths()) {
      try {
        rmdirSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') left = true;
      }
    }
    if (!left) this.removed = true;
    else if (attempt < 20) setTimeout(() => this.remove(attempt + 1), 50).unref();
  }

  private paths(): string[] {
    return [...new Set([...this.folders.values()].map((folder) => folder.path))];
  }
}
