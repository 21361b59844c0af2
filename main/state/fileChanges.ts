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

/** One timer and the looks it makes, and the setInterval that made it. */
interface Ticker {
  timer: ReturnType<typeof setInterval>;
  looks: Set<() => void>;
  madeBy: typeof setInterval;
}

/** The looks due at each interval, made together by one timer, so the watched files wake an idle gate once per interval, not once per file. */
const tickers = new Map<number, Ticker>();

/**
 * Calls `look` every `intervalMs` on the calling thread, on a timer shared with every other look of
 * that interval (it does not keep the process alive). A look that throws does not keep the others
 * from theirs; its error is thrown after them, as its own timer's would have been. Returns the stop function.
 */
export function everyTick(intervalMs: number, look: () => void): () => void {
  let ticker = tickers.get(intervalMs);
  // A timer made by another setInterval (a test's fake clock, since put back) is not joined.
  if (!ticker || ticker.madeBy !== setInterval) {
    const looks = new Set<() => void>();
    const timer = setInterval(() => {
      for (const each of [...looks]) {
        try {
          each();
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    }, intervalMs);
    timer.unref();
    ticker = { timer, looks, madeBy: setInterval };
    tickers.set(intervalMs, ticker);
  }
  const own = ticker;
  // The same function may be given twice: each registration is its own.
  const once = () => look();
  own.looks.add(once);
  return () => {
    own.looks.delete(once);
    if (own.looks.size > 0) return;
    clearInterval(own.timer);
    if (tickers.get(intervalMs) === own) tickers.delete(intervalMs);
  };
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
  return everyTick(intervalMs, () => {
    const now = fileSignature(path);
    if (now === seen) return;
    seen = now;
    onChange();
  });
}
