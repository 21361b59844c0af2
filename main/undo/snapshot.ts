import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { EntryState } from '../../shared/effects';
import { blake3Stream, fastBlake3BytesHex } from '../audit/fastBlake3';

/** An entry as a scan saw it: its state plus the stat fields that tell whether it changed since. */
export interface ScannedEntry extends EntryState {
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  /** Hard links to it: a file with more than one can be written through a name outside the workspace. */
  links: number;
}

/** What scans did since the gate started: entries stat'd and files hashed (what a scan costs, counted, not timed). */
export const scanWork = { stats: 0, hashes: 0 };

/** Workspace-relative paths (with /) to what was there. */
export type Snapshot = Map<string, ScannedEntry>;

/**
 * Every file, symlink and folder under the workspace, without following symlinks. A file is hashed
 * only when its stat (inode, size, mtime, ctime) differs from `previous`'s: a write changes mtime and
 * ctime, and ctime cannot be set back by a program, so an unchanged stat means unchanged bytes.
 * Sockets, fifos and devices are passed over (nothing of them can be put back).
 */
export function scanWorkspace(root: string, previous?: Snapshot): Snapshot {
  const snapshot: Snapshot = new Map();
  const stack = [''];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(dir === '' ? root : join(root, dir));
    } catch {
      continue;
    }
    for (const name of names) {
      const relative = dir === '' ? name : `${dir}/${name}`;
      const entry = scanEntry(root, relative, previous);
      if (!entry) continue;
      snapshot.set(relative, entry);
      if (entry.type === 'dir') stack.push(relative);
    }
  }
  return snapshot;
}

/**
 * The entries at exact paths (a file tool's target): each path, its folders up to the root (a
 * write may create them), and when it is a folder everything in it (a recursive delete).
 */
export function scanPaths(root: string, paths: readonly string[], previous?: Snapshot): Snapshot {
  const snapshot: Snapshot = new Map();
  for (const path of paths) {
    const parts = path.split('/').filter((part) => part !== '' && part !== '.');
    for (let depth = 1; depth <= parts.length; depth++) {
      const relative = parts.slice(0, depth).join('/');
      if (snapshot.has(relative)) continue;
      const entry = scanEntry(root, relative, previous);
      if (!entry) break;
      snapshot.set(relative, entry);
      // A symlink or a file on the way: what lies past it is not in the workspace's tree.
      if (depth < parts.length && entry.type !== 'dir') break;
      if (depth === parts.length && entry.type === 'dir') {
        for (const [below, inner] of scanWorkspace(join(root, relative), undefined)) snapshot.set(`${relative}/${below}`, inner);
      }
    }
  }
  return snapshot;
}

/** The state of one workspace path now, or null when nothing (that can be put back) is there. */
export function currentState(root: string, relative: string): EntryState | null {
  const entry = scanEntry(root, relative, undefined);
  return entry ? stateOnly(entry) : null;
}

/** An entry without its stat fields: what the audit records. */
export function stateOnly(entry: ScannedEntry | EntryState): EntryState {
  const { type, mode, hash, size, target } = entry;
  return { type, mode, ...(hash !== undefined ? { hash } : {}), ...(size !== undefined ? { size } : {}), ...(target !== undefined ? { target } : {}) };
}

/** One workspace path as a scan sees it (its hash reused from `previous` when its stat is unchanged), or undefined when nothing that can be put back is there. */
export function scanEntry(root: string, relative: string, previous: Snapshot | undefined): ScannedEntry | undefined {
  const absolute = join(root, relative);
  let stats: Stats;
  scanWork.stats++;
  try {
    stats = lstatSync(absolute);
  } catch {
    return undefined;
  }
  const base = { mode: stats.mode & 0o7777, ino: stats.ino, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, links: stats.nlink };
  if (stats.isDirectory()) return { type: 'dir', ...base };
  if (stats.isSymbolicLink()) {
    try {
      return { type: 'symlink', ...base, target: readlinkSync(absolute) };
    } catch {
      return undefined;
    }
  }
  if (!stats.isFile()) return undefined;
  const before = previous?.get(relative);
  if (before?.type === 'file' && before.hash && before.ino === stats.ino && before.size === stats.size && before.mtimeMs === stats.mtimeMs && before.ctimeMs === stats.ctimeMs) {
    return { type: 'file', ...base, size: stats.size, hash: before.hash };
  }
  try {
    return { type: 'file', ...base, size: stats.size, hash: fileHash(absolute, stats.size) };
  } catch {
    return undefined;
  }
}

/** Files up to this size are read whole to be hashed; larger ones a piece at a time, so a 10 GB file in the workspace costs the gate 1 MiB of memory, not 10 GB. */
const WHOLE_READ_BYTES = 1024 * 1024;

/** The BLAKE3 of a file's content. */
function fileHash(absolute: string, size: number): string {
  scanWork.hashes++;
  if (size <= WHOLE_READ_BYTES) return fastBlake3BytesHex(readFileSync(absolute));
  const hasher = blake3Stream();
  const chunk = Buffer.allocUnsafe(WHOLE_READ_BYTES);
  const fd = openSync(absolute, 'r');
  try {
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) hasher.update(chunk.subarray(0, read));
  } finally {
    closeSync(fd);
  }
  return hasher.hex();
}
