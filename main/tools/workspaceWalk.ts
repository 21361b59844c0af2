import { closeSync, readFileSync, readdirSync, type Dirent } from 'node:fs';
import { join, sep } from 'node:path';
import { GitignoreMatcher } from './gitignore';
import { openRegularFile, specialKind, type OpenedRegularFile, type SpecialKind } from './regularFile';

/** What an entry met on a walk is. Symlinks are reported, never followed. */
export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

/** One entry met on a walk. */
export interface WalkEntry {
  /** Workspace-relative path, with `/`. */
  readonly path: string;
  /** Its last segment. */
  readonly name: string;
  readonly type: EntryType;
  /** For type 'other': which special file it is (found from the directory entry, never by opening it). */
  readonly kind?: SpecialKind;
  /** 1 for entries of the starting folder, 2 for theirs, and so on. */
  readonly depth: number;
}

/** How a walk goes. */
export interface WalkOptions {
  /** How many levels below the start to visit (1: the start's own entries). */
  maxDepth: number;
  /** Hide what the workspace's .gitignore files hide (default true). */
  honourGitignore?: boolean;
  /** Called for each directory before it is entered; false skips what is below it. */
  descendInto?: (entry: WalkEntry) => boolean;
}

/** .gitignore files larger than this are not read (and so hide nothing). */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

/**
 * Walks the workspace below `start` (workspace-relative, '' for the root), breadth first so a capped
 * walk keeps the shallow entries, each folder's entries sorted by name. `.git` is always skipped;
 * .gitignore files of the start's parent folders and of every folder on the way apply.
 * `workspace` must be a real path and `start` a confined directory inside it.
 */
export function* walkWorkspace(workspace: string, start: string, options: WalkOptions): Generator<WalkEntry> {
  const honour = options.honourGitignore ?? true;
  const ignore = new GitignoreMatcher();
  if (honour) {
    const parts = start === '' ? [] : start.split('/');
    for (let count = 0; count < parts.length; count++) loadGitignore(workspace, parts.slice(0, count).join('/'), ignore);
  }
  let level: string[] = [start];
  for (let depth = 1; depth <= options.maxDepth && level.length > 0; depth++) {
    const next: string[] = [];
    for (const folder of level) {
      if (honour) loadGitignore(workspace, folder, ignore);
      for (const dirent of readEntries(join(workspace, folder))) {
        if (dirent.name === '.git') continue;
        const kind = specialKind(dirent);
        const entry: WalkEntry = {
          path: folder === '' ? dirent.name : `${folder}/${dirent.name}`,
          name: dirent.name,
          type: entryType(dirent),
          ...(kind ? { kind } : {}),
          depth,
        };
        if (honour && ignore.ignores(entry.path, entry.type === 'directory', start)) continue;
        yield entry;
        if (entry.type === 'directory' && (options.descendInto?.(entry) ?? true)) next.push(entry.path);
      }
    }
    level = next;
  }
}

/** The type of a directory entry, without following a symlink. */
export function entryType(dirent: Dirent): EntryType {
  if (dirent.isSymbolicLink()) return 'symlink';
  if (dirent.isDirectory()) return 'directory';
  if (dirent.isFile()) return 'file';
  return 'other';
}

/** A folder's entries sorted by name; a folder that vanished or cannot be read has none. */
function readEntries(absolute: string): Dirent[] {
  try {
    return readdirSync(absolute, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

/** Reads `folder`/.gitignore into the matcher when it is a regular file (a symlink is not followed, a FIFO not opened). */
function loadGitignore(workspace: string, folder: string, ignore: GitignoreMatcher): void {
  const path = join(workspace, folder, '.gitignore');
  let opened: OpenedRegularFile;
  try {
    opened = openRegularFile(path, path);
  } catch {
    // No .gitignore here, it vanished, or it is no regular file (a FIFO is never opened): nothing to add.
    return;
  }
  try {
    if (opened.stats.size <= MAX_GITIGNORE_BYTES) ignore.addFile(folder, readFileSync(opened.fd, 'utf8'));
  } catch {
    // Unreadable: nothing to add.
  } finally {
    closeSync(opened.fd);
  }
}

/** A workspace-relative path from confinePath with `/` between its segments ('' for the root). */
export function slashPath(relative: string): string {
  return relative.split(sep).join('/');
}
