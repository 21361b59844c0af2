import type { UpstreamCallOptions } from './types';

/** How much of a server's progress reaches the agent: a burst of ten, then ten a second; messages cut to 200 characters. */
const PROGRESS_BURST = 10;
const PROGRESS_INTERVAL_MS = 100;
const PROGRESS_MESSAGE_CHARS = 200;

export type Progress = { progress: number; total?: number; message?: string };

/** A progress notification's params as the gate passes them on; undefined for progress MCP does not allow (dropped, as the client drops a notification its schema refuses). */
export function progressOf(params: Record<string, unknown>): Progress | undefined {
  const { progress, total, message } = params;
  if (!isNumber(progress) || (total !== undefined && !isNumber(total)) || (message !== undefined && typeof message !== 'string')) return undefined;
  return { progress, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message } : {}) };
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * Passes a call's progress on in a burst of PROGRESS_BURST, then at most once per
 * PROGRESS_INTERVAL_MS, its message cut short: a server's progress goes to the agent unaudited, so a
 * flood of it must neither swamp the agent's connection nor carry a second, unrecorded result. What
 * arrives past the rate is not dropped but held: the latest one goes on when the next turn comes,
 * or with flush() before the result, so the agent always sees where the call got to.
 */
export function throttledProgress(onProgress: NonNullable<UpstreamCallOptions['onProgress']>): { report(progress: Progress): void; flush(): void; stop(): void } {
  let tokens = PROGRESS_BURST;
  let refilledAt = performance.now();
  let held: Progress | undefined;
  let timer: NodeJS.Timeout | undefined;
  const refill = () => {
    const now = performance.now();
    tokens = Math.min(PROGRESS_BURST, tokens + (now - refilledAt) / PROGRESS_INTERVAL_MS);
    refilledAt = now;
  };
  const send = ({ progress, total, message }: Progress) => {
    tokens -= 1;
    onProgress({ progress, total, ...(message !== undefined ? { message: message.slice(0, PROGRESS_MESSAGE_CHARS) } : {}) });
  };
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    refill();
    const latest = held;
    held = undefined;
    if (latest) send(latest);
  };
  return {
    report: (progress) => {
      refill();
      if (tokens >= 1 && !timer) return send(progress);
      held = progress;
      timer ??= setTimeout(flush, Math.max((1 - tokens) * PROGRESS_INTERVAL_MS, 0));
    },
    flush,
    stop: () => {
      clearTimeout(timer);
      held = undefined;
    },
  };
}
