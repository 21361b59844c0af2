import { randomBytes } from 'node:crypto';
import { chmodSync, constants, lstatSync, mkdirSync, renameSync, rmdirSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { GateError } from '../../shared/errors';
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
  // The gate's own scans never name a path so; one read back from a damaged log is refused, never resolved.
  if (path.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw new GateError('EPERMISSION', `${JSON.stringify(path)} is not a plain workspace-relative path: undo writes only paths its records name plainly`);
  }
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
 * symlinks, then modes. Every before-image is read before anything is touched (one gone stops the
 * undo with nothing written). Each path is confined to the workspace again right before it is
 * written (a symlink put on its way since the plan is refused). Files are staged in temp files
 * beside their targets, flushed to disk together (one journal commit rather than one per file), then
 * renamed over their targets; symlinks are made beside and renamed into place, never followed.
 */
export async function applyUndo(workspace: string, store: ImageStore, changes: readonly PathPlan[]): Promise<void> {
  const at = (path: string) => entryPath(workspace, path);
  const contents = new Map<string, Buffer>();
  for (const change of changes) {
    const target = change.target;
    if (target?.type !== 'file' || (change.current?.type === 'file' && change.current.hash === target.hash)) continue;
    const bytes = change.image ? store.read(change.image) : undefined;
    if (!bytes) throw new GateError('ENOTFOUND', `the before-image of ${change.path} is gone from the undo store; nothing was written`);
    contents.set(change.path, bytes);
  }
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
  const modes = new Map(changes.map((change) => [change.path, change.target?.mode ?? 0o644]));
  const staged = await Promise.all([...contents].map(async ([path, bytes]) => ({ path, temp: await stage(at(path), bytes, modes.get(path)!) })));
  try {
    // Confined again right before each rename: the staging awaited, and the workspace may have moved meanwhile.
    for (const { path, temp } of staged) renameSync(temp, at(path));
  } finally {
    for (const { temp } of staged) rmSync(temp, { force: true });
  }
  for (const change of changes) {
    const target = change.target;
    if (target?.type === 'file' && !contents.has(change.path)) chmodSync(at(change.path), target.mode);
    if (target?.type !== 'symlink') continue;
    const absolute = at(change.path);
    const temp = tempBeside(absolute);
    symlinkSync(target.target ?? '', temp);
    try {
      renameSync(temp, absolute);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  }
  await Promise.all([...new Set(staged.map(({ path }) => dirname(at(path))))].map(flushFolder));
}

/** A fresh temp name beside a path. */
function tempBeside(absolute: string): string {
  return join(dirname(absolute), `.${basename(absolute)}.toolgate-${randomBytes(6).toString('hex')}.tmp`);
}

/** Writes bytes to a new temp file beside `path` (never through a symlink), with its mode, flushed to disk. */
async function stage(path: string, bytes: Buffer, mode: number): Promise<string> {
  mkdirSync(dirname(path), { recursive: true });
  const temp = tempBeside(path);
  const file = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
  try {
    await file.writeFile(bytes);
    await file.chmod(mode);
    await file.datasync();
  } finally {
    await file.close();
  }
  return temp;
}

/** Flushes a folder's entries (the renames into it); where a folder cannot be opened for that, the platform's caching decides. */
async function flushFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, constants.O_RDONLY);
    await handle.sync().finally(() => handle.close());
  } catch {
    // The renames are done either way.
  }
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
