import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { GateError } from '../../shared/errors';

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
 * Resolves `requested` against the workspace root and proves it stays inside: `..` that climbs out,
 * an absolute path elsewhere, and a symlink (anywhere on the way) that points out are refused with
 * EPERMISSION. `workspace` must already be a real path.
 */
export function confinePath(workspace: string, requested: string): ConfinedPath {
  if (requested.includes('\0')) throw new GateError('EPERMISSION', 'the path holds a NUL byte');
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
function realpathOfLongestExisting(absolute: string, hops = 0): { real: string; exists: boolean } {
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
