import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces (or creates) `path` with `content` so that a reader, or the file after a crash, holds
 * either the old content or the new, never part of one: a temp file beside it (created
 * exclusively, never through a symlink) is written, given `mode` (not narrowed by the umask),
 * flushed to disk and renamed over it; the folder is flushed so the rename itself survives a power cut.
 */
export function writeFileAtomically(path: string, content: string | Uint8Array, mode: number): void {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), mode);
  try {
    try {
      writeSync(fd, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
      fchmodSync(fd, mode);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  flushFolder(dirname(path));
}

/** Flushes a folder's entries; a platform that cannot open a folder for that (Windows) is left to its own caching. */
function flushFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(folder, constants.O_RDONLY);
    fsyncSync(fd);
  } catch {
    // The rename is done either way; only its durability across a power cut is the platform's.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
