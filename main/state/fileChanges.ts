import { statSync } from 'node:fs';

/** What a file looks like from outside: absent (its error code), or its inode, size and modification time. */
export function fileSignature(path: string): string {
  try {
    const stats = statSync(path);
    return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'unreadable';
  }
}

/**
 * Calls `onChange` when the file at `path` is created, edited, renamed over or removed, looked at
 * every `intervalMs` on the calling thread (one stat, a few microseconds). The baseline is the file
 * as it was when the caller read it (`baseline`, a fileSignature), or as it is now: fs.watchFile
 * takes its first look later, in the thread pool, and a file created before that look was never
 * reported. Returns the stop function.
 */
export function watchFileChanges(path: string, intervalMs: number, onChange: () => void, baseline = fileSignature(path)): () => void {
  let seen = baseline;
  const timer = setInterval(() => {
    const now = fileSignature(path);
    if (now === seen) return;
    seen = now;
    onChange();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
