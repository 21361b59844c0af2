import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { GateError } from '../../shared/errors';
import { notRegularFile, specialKind } from './regularFile';
import { assertSameDirectory, directoryIdentity, type DirectoryIdentity } from './workspacePath';

/**
 * The transaction boundary of the file tools (seed 004): the new content is staged in a temp file
 * beside the target, in the same directory, and committed by one rename. Before the commit the
 * workspace is untouched; a failed check, a refused commit or a crash leaves the original as it was.
 */
export interface StagedFile {
  /** The file the change is for (absolute, confined). */
  readonly target: string;
  /** The temp file holding the new content. */
  readonly temp: string;
  /** The directory both live in, as it was when staged. */
  readonly parent: DirectoryIdentity;
  /** The temp file's inode, so a temp swapped for something else is not committed. */
  readonly ino: number;
  /** Bytes staged. */
  readonly bytes: number;
}

/** Test seams: run between staging and commit, where a crash or a swapped parent would strike. */
export interface StagingHooks {
  beforeCommit?(staged: StagedFile): void;
}

/**
 * Writes `content` to a new temp file beside `target` (created exclusively, never through a
 * symlink), flushed to disk. `mode` sets its permission bits (an edited file keeps its own); a new
 * file gets 0644 less the umask.
 */
export function stageFile(target: string, content: string, mode?: number): StagedFile {
  const parent = directoryIdentity(dirname(target));
  const temp = join(parent.path, `.${basename(target)}.toolgate-${randomBytes(6).toString('hex')}.tmp`);
  const bytes = Buffer.from(content, 'utf8');
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o644);
  try {
    writeSync(fd, bytes);
    if (mode !== undefined) fchmodSync(fd, mode);
    fsyncSync(fd);
    const { ino } = lstatSync(temp);
    return { target, temp, parent, ino, bytes: bytes.length };
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes a staged change visible with one rename, after proving the parent is still the directory
 * that was checked (inside the workspace, same real path and inode) and the temp is still ours.
 * The rename replaces the target's directory entry: a symlink there is replaced, never followed.
 */
export function commitStaged(workspace: string, staged: StagedFile): void {
  assertSameDirectory(workspace, staged.parent);
  const temp = lstatSync(staged.temp);
  if (!temp.isFile() || temp.ino !== staged.ino) {
    throw new GateError('EPERMISSION', `the staged copy of ${staged.target} was replaced while the call ran; nothing was changed`);
  }
  const existing = lstatOrUndefined(staged.target);
  if (existing?.isDirectory()) throw new GateError('EVALIDATION', `${staged.target} became a directory while the call ran; nothing was changed`);
  const special = existing && specialKind(existing);
  if (special) throw notRegularFile(staged.target, special, 'it took the place of the file while the call ran; nothing was changed');
  renameSync(staged.temp, staged.target);
}

/** Removes a staged temp file that will not be committed; missing is fine. */
export function discardStaged(staged: StagedFile): void {
  rmSync(staged.temp, { force: true });
}

/**
 * Replaces (or creates) `target` with `content` atomically: stage, commit, and on any failure
 * discard the stage so the original stays byte-identical. `createParents` makes missing folders.
 */
export function replaceFileAtomically(
  workspace: string,
  target: string,
  content: string,
  options: { mode?: number; createParents?: boolean; hooks?: StagingHooks } = {},
): number {
  if (options.createParents) mkdirSync(dirname(target), { recursive: true });
  const staged = stageFile(target, content, options.mode);
  try {
    options.hooks?.beforeCommit?.(staged);
    commitStaged(workspace, staged);
  } catch (error) {
    discardStaged(staged);
    throw error;
  }
  return staged.bytes;
}

function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
