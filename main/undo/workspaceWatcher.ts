/**
 * Whole-workspace scans that cost what changed, not the workspace's size. The first scan reads every
 * entry and puts an inotify watch (fs.watch, one per folder) on each folder; from then on the kernel
 * names each entry created, written, re-moded, renamed or removed in a watched folder, by any program,
 * and the next scan re-stats only those (a new folder whole, with its own watch put on before it is
 * read, so nothing made in it meanwhile is missed). Node's own recursive fs.watch is not used: on Linux
 * it is built on stat polling of each file.
 *
 * When the watches cannot be trusted, the scan is whole, as without them: before the first scan; when a
 * watch fails or cannot be added (the inotify limit, more than MAX_WATCHED_FOLDERS folders); when an
 * event names no entry; when the events since the last scan reach half the kernel's queue (libuv drops
 * the queue's overflow notice, so an overflow is inferred from the count: the queue held that many
 * events when it overflowed) and at the scan after; and always on a network file system, whose other
 * clients' writes raise no event here. A file with several hard links is re-stat'd at every scan: a
 * write through its other name raises no event in the workspace's folders.
 *
 * Not seen by any watch: a write through a shared memory mapping of a workspace file, or through a hard
 * link made from outside the workspace after the last scan (the kernel raises no event in the workspace's
 * folders for either); such a file is seen once anything touches it in the workspace.
 */
import { readFileSync, readdirSync, statfsSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { scanEntry, scanWorkspace, type ScannedEntry, type Snapshot } from './snapshot';

/** Folders past which nothing is watched and every scan is whole (each takes one of the user's inotify watches). */
export const MAX_WATCHED_FOLDERS = 8192;

/** statfs magic numbers of file systems whose changes by other machines raise no inotify event here. */
const REMOTE_FILE_SYSTEMS = new Set([0x6969 /* NFS */, 0xff534d42 /* CIFS */, 0xfe534d42 /* SMB2 */, 0x517b /* SMB */, 0x01021997 /* 9p */, 0x65735546 /* FUSE */, 0x73757245 /* Coda */, 0x5346414f /* AFS */]);

/** The kernel's inotify queue length (events past it are dropped), or its usual default. */
function inotifyQueueLength(): number {
  try {
    const length = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim());
    return Number.isInteger(length) && length > 0 ? length : 16_384;
  } catch {
    return 16_384;
  }
}

/** Scans the whole workspace, re-stat'ing only what the kernel said changed since the previous scan. */
export class WorkspaceWatcher {
  private last: Snapshot | undefined;
  private readonly dirty = new Set<string>();
  private readonly watchers = new Map<string, FSWatcher>();
  /** Files with more than one hard link, re-stat'd at every scan. */
  private readonly linked = new Set<string>();
  /** Why the next scan must be whole (undefined: the watches hold everything since the last). */
  private wholeBecause: string | undefined = 'no scan yet';
  /** Set when an overflow may have dropped events: the scan after the next is whole too. */
  private wholeAgain = false;
  private eventsSinceScan = 0;
  private readonly overflowAt = Math.floor(inotifyQueueLength() / 2);
  /** Why nothing is watched at all (every scan is whole, as without watches), when it is so. */
  private unwatchable: string | undefined;
  private closed = false;

  constructor(private readonly root: string) {
    this.unwatchable = remoteFileSystem(root);
  }

  /** The newest scan, if any: its hashes are reused by exact-path scans, its sizes by the prompt. */
  get lastScan(): Snapshot | undefined {
    return this.last;
  }

  /** Every entry of the workspace now. Call after the event loop delivered pending events (see EffectsWatch.end). */
  scan(): Snapshot {
    if (this.eventsSinceScan >= this.overflowAt) {
      // The events after the overflow may be counted in the next scan's window: it is whole too.
      this.wholeBecause = `${this.eventsSinceScan} changes since the last scan, enough for the kernel's queue to have dropped some`;
      this.wholeAgain = true;
    } else if (this.wholeAgain) {
      this.wholeBecause = 'the kernel may have dropped changes just before the previous scan';
      this.wholeAgain = false;
    }
    this.eventsSinceScan = 0;
    const whole = this.wholeBecause !== undefined || this.last === undefined || this.unwatchable !== undefined || this.closed;
    const next = whole ? this.wholeScan() : this.changedScan(this.last!);
    this.last = next;
    return next;
  }

  /** Stops watching (the gate is stopping): later scans are whole. */
  close(): void {
    this.closed = true;
    this.unwatchAll();
  }

  private wholeScan(): Snapshot {
    this.unwatchAll();
    this.dirty.clear();
    this.linked.clear();
    this.wholeBecause = undefined;
    if (this.unwatchable !== undefined || this.closed) return scanWorkspace(this.root, this.last);
    const next: Snapshot = new Map();
    this.addTree(next, '', this.last);
    return next;
  }

  private changedScan(last: Snapshot): Snapshot {
    const next: Snapshot = new Map(last);
    const changed = [...this.dirty, ...this.linked];
    this.dirty.clear();
    for (const path of changed) this.rescan(next, path, last);
    return next;
  }

  /** Looks again at one path the kernel named: gone (with all below it), changed, or a folder new or replaced (read whole). */
  private rescan(next: Snapshot, path: string, last: Snapshot): void {
    const prior = next.get(path);
    const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    // Under a folder gone or replaced since: dropped with it, or read whole with it.
    if (parent !== '' && next.get(parent)?.type !== 'dir') return;
    const entry = scanEntry(this.root, path, last);
    if (entry?.type === 'dir' && prior?.type === 'dir' && prior.ino === entry.ino) {
      next.set(path, entry);
      return;
    }
    if (prior?.type === 'dir') this.dropBelow(next, path);
    if (!entry) {
      next.delete(path);
      this.linked.delete(path);
      return;
    }
    this.keep(next, path, entry);
    if (entry.type === 'dir') this.addTree(next, path, last);
  }

  /** Watches a folder, then reads it and everything below it (each folder watched before it is read). */
  private addTree(next: Snapshot, top: string, previous: Snapshot | undefined): void {
    const stack = [top];
    while (stack.length > 0) {
      const folder = stack.pop()!;
      this.watchFolder(folder);
      let names: string[];
      try {
        names = readdirSync(folder === '' ? this.root : join(this.root, folder));
      } catch {
        continue;
      }
      for (const name of names) {
        const path = folder === '' ? name : `${folder}/${name}`;
        const entry = scanEntry(this.root, path, previous);
        if (!entry) continue;
        this.keep(next, path, entry);
        if (entry.type === 'dir') stack.push(path);
      }
    }
  }

  private keep(next: Snapshot, path: string, entry: ScannedEntry): void {
    next.set(path, entry);
    if (entry.type === 'file' && entry.links > 1) this.linked.add(path);
    else this.linked.delete(path);
  }

  /** Drops what a snapshot holds below a folder, and the watches on it. */
  private dropBelow(next: Snapshot, folder: string): void {
    const prefix = `${folder}/`;
    for (const path of next.keys()) {
      if (!path.startsWith(prefix)) continue;
      next.delete(path);
      this.linked.delete(path);
    }
    for (const [path, watcher] of this.watchers) {
      if (path !== folder && !path.startsWith(prefix)) continue;
      watcher.close();
      this.watchers.delete(path);
    }
  }

  private watchFolder(folder: string): void {
    if (this.unwatchable !== undefined) return;
    this.watchers.get(folder)?.close();
    if (this.watchers.size >= MAX_WATCHED_FOLDERS) return this.giveUp(`the workspace has more than ${MAX_WATCHED_FOLDERS} folders`);
    let watcher: FSWatcher;
    try {
      watcher = watch(folder === '' ? this.root : join(this.root, folder), { persistent: false }, (_event, name) => {
        this.eventsSinceScan++;
        if (typeof name !== 'string' || name === '') this.wholeBecause = 'an event named no entry';
        else this.dirty.add(folder === '' ? name : `${folder}/${name}`);
      });
    } catch (error) {
      return this.giveUp(`a folder could not be watched (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    // A watch that fails (its folder removed under it, the kernel's limits) may have missed changes.
    watcher.on('error', () => (this.wholeBecause = 'a watch failed'));
    this.watchers.set(folder, watcher);
  }

  /** The watches cannot cover the workspace: none is kept, and every scan from now on is whole. */
  private giveUp(why: string): void {
    this.wholeBecause = why;
    this.unwatchable = why;
    this.unwatchAll();
  }

  private unwatchAll(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}

/** Why a workspace on a network file system is never trusted to its watches, or undefined. */
function remoteFileSystem(root: string): string | undefined {
  try {
    const type = statfsSync(root).type;
    return REMOTE_FILE_SYSTEMS.has(type) ? `the workspace is on a network file system (type 0x${type.toString(16)})` : undefined;
  } catch {
    return 'the workspace file system could not be identified';
  }
}
