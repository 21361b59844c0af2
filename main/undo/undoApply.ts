import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, renameSync, rmdirSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { GateError } from '../../shared/errors';
import { writeFileAtomically } from '../state/atomicFile';
import { slashed } from '../tools/protectedPaths';
import { confinePath } from '../tools/workspacePath';
import type { ImageStore } from './imageStore';
import type { PathPlan } from './undoPlan';

/**
 * The absolute path of a workspace entry, proven to be reached by its own name: the folders on its
 * way are real folders inside the workspace, none of them a symlink (the entry itself may be one;
 * it is replaced or removed, never followed). Throws EPERMISSION otherwise.
 */
export function entryPath(workspace: string, path: string): string {
  const parent = dirname(path);
  if (parent !== '.') {
    const confined = confinePath(workspace, parent);
    if (slashed(confined.relative) !== parent) {
      throw new GateError('EPERMISSION', `${path} is now reached through a symlink (${parent} resolves to ${confined.relative || '.'}): undo writes no path by another name`);
    }
  }
  return join(workspace, path);
}

/** How deep a path is: parents before children when creating, children first when removing. */
function depth(path: string): number {
  return path.split('/').length;
}

/**
 * Writes a plan: first what must go (deepest first), then folders (shallowest first), then files and
 * symlinks, then modes. Each path is confined to the workspace again right before it is written (a
 * symlink put on its way since the plan is refused), files are written atomically (a temp file
 * beside, renamed over), and symlinks are made beside and renamed into place, never followed.
 */
export function applyUndo(workspace: string, store: ImageStore, changes: readonly PathPlan[]): void {
  const at = (path: string) => entryPath(workspace, path);
  const removals = changes.filter((change) => change.current !== null && (change.target === null || change.target.type !== change.current.type));
  for (const change of [...removals].sort((a, b) => depth(b.path) - depth(a.path))) {
    const absolute = at(change.path);
    if (change.current!.type === 'dir') rmdirSync(absolute);
    else unlinkSync(absolute);
  }
  const folders = changes.filter((change) => change.target?.type === 'dir').sort((a, b) => depth(a.path) - depth(b.path));
  for (const change of folders) {
    const absolute = at(change.path);
    if (!isFolder(absolute)) mkdirSync(absolute, { mode: change.target!.mode });
    chmodSync(absolute, change.target!.mode);
  }
  for (const change of changes) {
    const target = change.target;
    if (target?.type === 'file') {
      const absolute = at(change.path);
      const sameContent = change.current?.type === 'file' && change.current.hash === target.hash;
      if (sameContent) {
        chmodSync(absolute, target.mode);
        continue;
      }
      const bytes = change.image ? store.read(change.image) : undefined;
      if (!bytes) throw new GateError('ENOTFOUND', `the before-image of ${change.path} is gone from the undo store; the undo stopped there`);
      mkdirSync(dirname(absolute), { recursive: true });
      writeFileAtomically(absolute, bytes, target.mode);
    } else if (target?.type === 'symlink') {
      const absolute = at(change.path);
      const temp = join(dirname(absolute), `.${basename(absolute)}.toolgate-${randomBytes(6).toString('hex')}.tmp`);
      symlinkSync(target.target ?? '', temp);
      try {
        renameSync(temp, absolute);
      } catch (error) {
        rmSync(temp, { force: true });
        throw error;
      }
    }
  }
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
