import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces `path` with `content` so that a reader, or the file after a crash, holds either the old
 * content or the new, never part of one: a temp file beside it (created exclusively, never through
 * a symlink) is written, given `mode` (not narrowed by the umask), flushed to disk and renamed over it.
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
}
