import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A file has one name per hard link to it: `ln secret/key notes/key` made earlier, or a link entry
 * of an extracted tar archive, leaves secret/key's content readable and writable as notes/key, a
 * name no rule of secret/** matches. So a deny or ask of a folder holds every name of the files
 * below it: a path whose file has other names is looked up among the files below the rule's folder.
 */

/**
 * Entries looked at below one folder before its files are taken as unknown: then the other names
 * of a file are not looked for there (a walk of every file in a large tree, node_modules or a
 * cache, at each call would stall the gate, and holding every file with several names, as every
 * file of a pnpm install is, would refuse most of them).
 */
export const MAX_INDEXED_ENTRIES = 20_000;

/**
 * How long the files below a folder are kept before they are walked again: a flood of calls on a
 * file with several names costs one walk per window. Every file is kept, whatever its link count
 * then, so a name made since (the archive extracted a moment ago) still finds it; and within the
 * window each folder below is looked at again (its modification time), so a file made or moved
 * into one since (`private/new`, then `ln private/new notes/x`) has the folder walked afresh.
 */
const INDEX_MS = 1000;

/** How long a folder found too large to look at all is taken as such before it is walked again (a large tree seldom shrinks, and each walk costs about 150 ms). */
const TOO_LARGE_MS = 60_000;

/** Folders whose files are kept at once; the oldest goes first. */
const MAX_INDEXES = 32;

/** A file's identity on this machine (device and inode): what every name of it shares. */
export type FileIdentity = string;

/** The identity of the regular file `path` names when that file has other names too; undefined for any other path. */
export function otherNamesOf(path: string): FileIdentity | undefined {
  try {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    return stats?.isFile() && stats.nlink > 1 ? `${stats.dev}:${stats.ino}` : undefined;
  } catch {
    return undefined;
  }
}

interface FolderFiles {
  readonly at: number;
  /** The names of each file below the folder, by identity; undefined when there were too many to look at. */
  readonly files: ReadonlyMap<FileIdentity, readonly string[]> | undefined;
  /** What each folder below it (and the base itself) was when they were looked at: a change is a file made, moved or removed there. */
  readonly stamps: ReadonlyMap<string, string>;
}

const kept = new Map<string, FolderFiles>();

/**
 * The files below `base` (a folder, or a file) by identity, or undefined when more than
 * MAX_INDEXED_ENTRIES entries are below it and they were not all looked at. Links below it are not
 * followed: what they lead to is judged where it lies.
 */
function filesOf(base: string): ReadonlyMap<FileIdentity, readonly string[]> | undefined {
  let folder = kept.get(base);
  if (!folder || performance.now() - folder.at >= (folder.files === undefined ? TOO_LARGE_MS : INDEX_MS) || (folder.files !== undefined && changedSince(folder.stamps))) {
    const stamps = new Map<string, string>();
    folder = { at: performance.now(), files: filesBelow(base, stamps), stamps };
    kept.delete(base);
    if (kept.size >= MAX_INDEXES) kept.delete(kept.keys().next().value!);
    kept.set(base, folder);
  }
  return folder.files;
}

/** The names below `base` of the file `identity`; undefined when not every entry below it could be looked at. */
export function namesBelow(base: string, identity: FileIdentity): readonly string[] | undefined {
  const files = filesOf(base);
  return files === undefined ? undefined : (files.get(identity) ?? []);
}

/**
 * Whether a file below `base` that `matches` has another name below one of `folders` (a program
 * working on them recursively reaches it there): only looked for when such a file has several
 * names at all, and not past MAX_INDEXED_ENTRIES entries of either.
 */
export function linkedInto(base: string, matches: (path: string) => boolean, folders: readonly string[]): boolean {
  const files = filesOf(base);
  if (files === undefined) return false;
  // Counted afresh: a name made since the folder was looked at (an archive extracted a moment ago) counts.
  const linked = [...files].filter(([identity, names]) => names.some(matches) && otherNamesOf(names[0]!) === identity);
  if (linked.length === 0) return false;
  return folders.some((folder) => {
    // Looked at afresh too: a name made a moment ago below it counts.
    const below = filesBelow(folder);
    return below !== undefined && linked.some(([identity]) => below.get(identity)?.some((path) => !matches(path)));
  });
}

/** What a folder (or the base file) is now, as far as files made, moved or removed in it go: its identity and modification time. */
function stampOf(path: string): string {
  try {
    const stats = lstatSync(path, { bigint: true, throwIfNoEntry: false });
    return stats ? `${stats.dev}:${stats.ino}:${stats.mtimeNs}` : 'gone';
  } catch {
    return 'unreadable';
  }
}

/** Whether any folder looked at changed since its stamp was taken. */
function changedSince(stamps: ReadonlyMap<string, string>): boolean {
  for (const [path, stamp] of stamps) if (stampOf(path) !== stamp) return true;
  return false;
}

/** The files below `base` by identity (see filesOf); `stamps` gets the stamp of the base and of each folder walked. */
function filesBelow(base: string, stamps = new Map<string, string>()): Map<FileIdentity, string[]> | undefined {
  const files = new Map<FileIdentity, string[]>();
  const note = (path: string) => {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats?.isDirectory() || path === base) stamps.set(path, stampOf(path));
    if (!stats?.isFile()) return stats?.isDirectory() === true;
    const identity = `${stats.dev}:${stats.ino}`;
    const names = files.get(identity);
    if (names) names.push(path);
    else files.set(identity, [path]);
    return false;
  };
  const pending: string[] = [];
  try {
    if (note(base)) pending.push(base);
  } catch {
    return files;
  }
  let looked = 0;
  while (pending.length > 0) {
    const folder = pending.pop()!;
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      if (++looked > MAX_INDEXED_ENTRIES) return undefined;
      const path = join(folder, name);
      try {
        if (note(path)) pending.push(path);
      } catch {
        // gone since
      }
    }
  }
  return files;
}
