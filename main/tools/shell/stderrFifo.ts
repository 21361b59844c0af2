import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A named pipe in a fresh private folder (os.tmpdir(): a private tmpfs inside the sandbox) that a
 * shell sends its stderr to while its stdout stays on a pseudo-terminal; read here as it comes.
 */

/** How long, after the shell ended, a writer that escaped its process group may keep stderr open. */
const DRAIN_GRACE_MS = 1_000;

/** An open stderr FIFO: give `path` to the shell, then `close()` once it has exited. */
export interface StderrFifo {
  /** Absolute path of the FIFO, for the shell to open for writing. */
  readonly path: string;
  /** Waits for the last writer to close (at most a short grace), then removes the FIFO and its folder. Idempotent; never rejects. */
  close(): Promise<void>;
}

/** Makes the FIFO and starts reading it; null when no FIFO can be made here (nothing is left behind then). */
export function openStderrFifo(onChunk: (chunk: string) => void): StderrFifo | null {
  let folder: string | undefined;
  let readFd: number | undefined;
  let keepOpenFd: number | undefined;
  try {
    folder = mkdtempSync(join(tmpdir(), 'toolgate-stderr-'));
    const path = join(folder, 'stderr');
    execFileSync('mkfifo', ['-m', '600', path], { stdio: 'ignore' });
    // Non-blocking: opening for reading does not wait for a writer. Both ends are close-on-exec
    // (libuv opens so), so the shell and its children never inherit them.
    readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    // Our own writer keeps the FIFO from reading as ended before the shell opens it (or when a
    // command never writes stderr); closed once the shell exits, so the end comes with the last writer.
    keepOpenFd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
    // A socket (a libuv pipe handle) reads the FIFO through the event loop, not a blocked thread-pool read.
    const reader = new Socket({ fd: readFd, readable: true, writable: false });
    readFd = undefined; // The socket owns it now.
    return readingFifo(folder, path, keepOpenFd, reader, onChunk);
  } catch {
    if (readFd !== undefined) closeSync(readFd);
    if (keepOpenFd !== undefined) closeSync(keepOpenFd);
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
    return null;
  }
}

function readingFifo(folder: string, path: string, keepOpenFd: number, reader: Socket, onChunk: (chunk: string) => void): StderrFifo {
  const ended = new Promise<void>((resolve) => {
    reader.once('close', () => resolve());
    // A read error ends the stream like its end does; what was read is kept.
    reader.on('error', () => resolve());
  });
  reader.setEncoding('utf8').on('data', (chunk: string) => onChunk(chunk));
  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    closeSync(keepOpenFd);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_GRACE_MS)))]);
    } finally {
      clearTimeout(timer);
      reader.destroy();
      rmSync(folder, { recursive: true, force: true });
    }
  };
  return {
    path,
    close: () => (closing ??= close().catch(() => undefined)),
  };
}
