/** Runs a function once, soon (the next animation frame in a browser). */
export type FrameScheduler = (run: () => void) => void;

/** A hidden tab gets no animation frames; its events are applied this often all the same (the title counts prompts). */
export const HIDDEN_TAB_FLUSH_MS = 250;

/**
 * The browser's next animation frame, or HIDDEN_TAB_FLUSH_MS if that comes first; undefined where
 * there are no frames (events are then applied one by one).
 */
export function animationFrameScheduler(): FrameScheduler | undefined {
  if (typeof globalThis.requestAnimationFrame !== 'function') return undefined;
  return (run) => {
    let ran = false;
    const once = () => {
      if (ran) return;
      ran = true;
      run();
    };
    globalThis.requestAnimationFrame(once);
    setTimeout(once, HIDDEN_TAB_FLUSH_MS);
  };
}

/**
 * Gathers events and applies them together, in arrival order, once per frame: a flood of ten
 * thousand prompts costs one store update and one render a frame, not one per event. Without a
 * scheduler every event is applied at once.
 */
export class EventBatch<T> {
  private queued: T[] = [];
  private scheduled = false;
  private stopped = false;

  constructor(
    private readonly apply: (events: readonly T[]) => void,
    private readonly schedule: FrameScheduler | undefined,
  ) {}

  /** Queues one event (or applies it now, without a scheduler). */
  push(event: T): void {
    if (this.stopped) return;
    if (!this.schedule) {
      this.apply([event]);
      return;
    }
    this.queued.push(event);
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => this.flush());
  }

  /** Applies everything queued now. */
  flush(): void {
    this.scheduled = false;
    if (this.stopped || this.queued.length === 0) return;
    const events = this.queued;
    this.queued = [];
    this.apply(events);
  }

  /** Drops what is queued and ignores what comes after; safe to call twice. */
  stop(): void {
    this.stopped = true;
    this.queued = [];
  }
}
