import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces (or creates) the state file `path` with `text` so a reader sees the old content or the
 * new, never half of either, and a crash leaves one of the two: the text goes to a temp file beside
 * it (created exclusively, never through a symlink), is flushed to disk, given `mode`, and renamed
 * over the file; the folder is flushed so the rename itself survives a power cut.
 */
export function writeFileAtomic(path: string, text: string, mode: number): void {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), mode);
  try {
    try {
      writeSync(fd, text);
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
