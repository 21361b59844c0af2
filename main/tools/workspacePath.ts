import { lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
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

function isInside(root: string, candidate: string): boolean {
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

/** realpath of the longest existing prefix, with the missing rest appended. */
function realpathOfLongestExisting(absolute: string): { real: string; exists: boolean } {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = realpathSync(current);
      return { real: missing.length === 0 ? real : join(real, ...missing.reverse()), exists: missing.length === 0 };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      const parent = resolve(current, '..');
      if (parent === current) throw error;
      missing.push(current.slice(parent.length).replace(/^[/\\]+/, ''));
      current = parent;
    }
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
