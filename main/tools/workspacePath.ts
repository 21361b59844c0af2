import { closeSync, lstatSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { GateError } from '../../shared/errors';
import { openRegularFile } from './regularFile';

/** A path inside the workspace, resolved through every symlink that exists today. */
export interface ConfinedPath {
  /** Absolute real path (existing part resolved, missing tail appended). */
  readonly absolute: string;
  /** The same path relative to the workspace root ('' for the root itself). */
  readonly relative: string;
  /** Whether something exists at the path now. */
  readonly exists: boolean;
}

/** Whether `candidate` is `root` itself or lies below it (both absolute). */
export function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Control characters (C0 such as newline, carriage return and tab; DEL; C1), the Unicode line and
 * paragraph separators and the bidi controls. A name holding one reads differently from what it
 * is: it breaks a prompt's lines and the diff's headers, or reorders what the person sees.
 */
const INVISIBLE_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** Refuses (EVALIDATION, naming `argument`) a path holding a character that would not show as it is. */
export function refuseInvisibleCharacters(requested: string, argument: string): void {
  const found = INVISIBLE_CHARACTER.exec(requested);
  if (!found) return;
  const code = `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  throw new GateError(
    'EVALIDATION',
    `${argument} holds the control character ${code} at position ${found.index}; paths may not contain control characters, ` +
      'line or paragraph separators or bidi controls, which would show the person another name than the one used',
    { argument, character: code },
  );
}

/** Refuses a path no file can have (a NUL byte: EPERMISSION) or one that would not show as it is (refuseInvisibleCharacters). */
export function refuseUnnamablePath(requested: string, argument: string): void {
  if (requested.includes('\0')) throw new GateError('EPERMISSION', 'the path holds a NUL byte, which no file name can hold; remove it');
  refuseInvisibleCharacters(requested, argument);
}

/**
 * Resolves `requested` against the workspace root and proves it stays inside: `..` that climbs out,
 * an absolute path elsewhere, and a symlink (anywhere on the way) that points out are refused with
 * EPERMISSION; a name holding a control character (refuseInvisibleCharacters) with EVALIDATION
 * naming `argument`. `workspace` must already be a real path.
 */
export function confinePath(workspace: string, requested: string, argument = 'path'): ConfinedPath {
  refuseUnnamablePath(requested, argument);
  const lexical = resolve(workspace, requested);
  if (!isInside(workspace, lexical)) {
    throw new GateError(
      'EPERMISSION',
      `${JSON.stringify(requested)} is outside the workspace ${workspace}; use a path inside it`,
      { path: requested },
    );
  }
  const { real, exists } = realpathOfLongestExisting(lexical);
  if (!isInside(workspace, real)) {
    throw new GateError(
      'EPERMISSION',
      `${JSON.stringify(requested)} resolves through a symlink to ${real}, outside the workspace`,
      { path: requested, resolved: real },
    );
  }
  return { absolute: real, relative: relative(workspace, real), exists };
}

/**
 * realpath of the longest existing prefix, with the missing rest appended. A dangling symlink on the
 * way is followed to where it points, so a link to a folder that does not exist yet is judged by
 * its target, not by its own name.
 */
export function realpathOfLongestExisting(absolute: string, hops = 0): { real: string; exists: boolean } {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = realpathSync(current);
      return { real: missing.length === 0 ? real : join(real, ...missing.reverse()), exists: missing.length === 0 };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new GateError('EPERMISSION', `${absolute} goes through a loop of symlinks`);
      if (code === 'ENAMETOOLONG') throw new GateError('EVALIDATION', 'the path (or one of its names) is too long for this file system');
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      const dangling = danglingLinkTarget(current);
      if (dangling !== undefined) {
        if (hops >= 40) throw new GateError('EPERMISSION', `${absolute} goes through too many symlinks`);
        const rest = missing.reverse();
        return realpathOfLongestExisting(rest.length > 0 ? join(dangling, ...rest) : dangling, hops + 1);
      }
      const parent = resolve(current, '..');
      if (parent === current) throw error;
      missing.push(current.slice(parent.length).replace(/^[/\\]+/, ''));
      current = parent;
    }
  }
}

/** Where a symlink that points nowhere would lead, or undefined when `path` is no symlink. */
function danglingLinkTarget(path: string): string | undefined {
  try {
    if (!lstatSync(path).isSymbolicLink()) return undefined;
    return resolve(dirname(path), readlinkSync(path));
  } catch {
    return undefined;
  }
}

/** Refuses a write target that is itself a symlink: writes never follow one. */
export function refuseSymlinkTarget(workspace: string, requested: string): void {
  const lexical = resolve(workspace, requested);
  try {
    if (lstatSync(lexical).isSymbolicLink()) {
      throw new GateError('EPERMISSION', `${JSON.stringify(requested)} is a symlink; writes never follow symlinks`, {
        path: requested,
      });
    }
  } catch (error) {
    if (error instanceof GateError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Which directory a path names now: its real path and inode, to notice one swapped for another. */
export interface DirectoryIdentity {
  /** The directory as it was named when it was checked (absolute, not resolved again). */
  readonly path: string;
  /** Its real path then. */
  readonly real: string;
  /** Device and inode then: a directory renamed away and replaced by another has other ones. */
  readonly dev: number;
  readonly ino: number;
}

/** The identity of the directory at `path` (which must be an existing directory, not a symlink to one). */
export function directoryIdentity(path: string): DirectoryIdentity {
  const stats = lstatSync(path);
  if (!stats.isDirectory()) throw new GateError('EPERMISSION', `${path} is not a directory (a symlink is never followed)`);
  return { path, real: realpathSync(path), dev: stats.dev, ino: stats.ino };
}

/**
 * Proves the directory a change is about to land in is still the one that was checked: still inside
 * the workspace, same real path, same inode. Called after staging, just before the commit (rename
 * or removal), so a parent swapped for a symlink (to outside, or to elsewhere inside) in between is
 * refused. Node has no renameat(), so a window of a few system calls remains; the OS sandbox, which
 * mounts only the workspace writable, bounds what a swap inside that window can reach.
 */
export function assertSameDirectory(workspace: string, identity: DirectoryIdentity): void {
  let stats;
  let real: string;
  try {
    stats = lstatSync(identity.path);
    real = realpathSync(identity.path);
  } catch (error) {
    throw parentMoved(identity, `it is gone (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const where = isInside(workspace, real) ? real : `${real}, outside the workspace`;
  if (stats.isSymbolicLink()) throw parentMoved(identity, `it is now a symlink to ${where}`);
  if (!stats.isDirectory()) throw parentMoved(identity, 'it is no longer a directory');
  if (real !== identity.real) throw parentMoved(identity, `it now resolves to ${where}, not ${identity.real}`);
  if (stats.dev !== identity.dev || stats.ino !== identity.ino) throw parentMoved(identity, 'another directory took its place');
}

function parentMoved(identity: DirectoryIdentity, why: string): GateError {
  return new GateError('EPERMISSION', `the folder ${identity.path} changed while the call ran (${why}); nothing was changed`, {
    path: identity.path,
  });
}

/** An existing regular file read through a descriptor opened without following a final symlink. */
export interface OpenedFile {
  /** The bytes read. */
  readonly bytes: Buffer;
  /** Permission bits, kept when the file is replaced. */
  readonly mode: number;
}

/**
 * Reads the file at `absolute` (already confined) through openRegularFile (no symlink followed, no
 * FIFO, socket or device opened), and checks what was actually opened: its real path (Linux:
 * /proc/self/fd) is `absolute` inside the workspace. A path swapped since confinePath is refused, not read.
 */
export function readFileNoFollow(workspace: string, absolute: string, requested: string, maxBytes: number): OpenedFile {
  const { fd, stats } = openRegularFile(absolute, requested);
  try {
    const opened = openedPath(fd);
    if (opened !== undefined && (opened !== absolute || !isInside(workspace, opened))) {
      throw new GateError('EPERMISSION', `${JSON.stringify(requested)} changed while it was opened (it is now ${opened}); nothing was read`);
    }
    if (stats.size > maxBytes) throw new GateError('EQUOTA', `${requested} is ${stats.size} bytes; at most ${maxBytes} are handled`);
    return { bytes: readFileSync(fd), mode: stats.mode & 0o7777 };
  } finally {
    closeSync(fd);
  }
}

/** The real path of an open descriptor where the OS tells it (Linux), else undefined. */
function openedPath(fd: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}
