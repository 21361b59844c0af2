import type { CatchUp } from './callIndex';

/** The index thread's nice value on Linux: below the gate's priority, not at the lowest (see indexWorker.ts). */
export const INDEX_THREAD_NICE = 10;

/** What the gate's thread asks the index thread: fold what was committed (at once, when a reader waits), or close. */
export type IndexThreadRequest = { type: 'fold'; now: boolean } | { type: 'close' };

/** What the index thread is started with. */
export interface IndexWorkerData {
  auditPath: string;
  indexPath: string;
  /** The IndexState both threads read and write. */
  shared: SharedArrayBuffer;
}

const STATUSES = ['starting', 'open', 'failed', 'closed'] as const;
const CATCH_UPS: CatchUp['kind'][] = ['current', 'caught-up', 'rebuilt'];

/** Slots of the shared state. */
const STATUS = 0;
const WATERMARK = 1;
const CATCH_UP_KIND = 2;
const CATCH_UP_RECORDS = 3;
const CATCH_UP_MICROS = 4;
/** Bumped at every change, so a waiting thread wakes. */
const CHANGES = 5;
const SLOTS = 6;

/**
 * The index thread's progress, in memory both threads share: its status, the newest seq folded,
 * and what opening the index did. The index thread writes it; the gate's thread reads it, and may
 * block on it (Atomics.wait) when a reader needs the index current, as it once folded in place.
 */
export class IndexState {
  private readonly slots: BigInt64Array;

  constructor(readonly shared: SharedArrayBuffer = new SharedArrayBuffer(SLOTS * 8)) {
    this.slots = new BigInt64Array(shared);
  }

  status(): (typeof STATUSES)[number] {
    return STATUSES[Number(Atomics.load(this.slots, STATUS))]!;
  }

  /** The newest seq the index holds. */
  watermark(): number {
    return Number(Atomics.load(this.slots, WATERMARK));
  }

  /** What opening the index did, once it is open. */
  catchUp(): CatchUp | undefined {
    if (this.status() === 'starting') return undefined;
    return {
      kind: CATCH_UPS[Number(Atomics.load(this.slots, CATCH_UP_KIND))]!,
      records: Number(Atomics.load(this.slots, CATCH_UP_RECORDS)),
      ms: Number(Atomics.load(this.slots, CATCH_UP_MICROS)) / 1000,
    };
  }

  opened(catchUp: CatchUp, watermark: number): void {
    Atomics.store(this.slots, CATCH_UP_KIND, BigInt(CATCH_UPS.indexOf(catchUp.kind)));
    Atomics.store(this.slots, CATCH_UP_RECORDS, BigInt(catchUp.records));
    Atomics.store(this.slots, CATCH_UP_MICROS, BigInt(Math.round(catchUp.ms * 1000)));
    Atomics.store(this.slots, WATERMARK, BigInt(watermark));
    this.set('open');
  }

  folded(watermark: number): void {
    Atomics.store(this.slots, WATERMARK, BigInt(watermark));
    this.changed();
  }

  fail(): void {
    this.set('failed');
  }

  closed(): void {
    this.set('closed');
  }

  /**
   * Blocks this thread until `done()` holds or `timeoutMs` passed (then false). Only the gate's
   * thread waits, and only for a reader or its close; the index thread never does.
   */
  waitUntil(done: () => boolean, timeoutMs: number): boolean {
    for (const step of this.waits(done, timeoutMs)) {
      if (typeof step === 'boolean') return step;
      Atomics.wait(this.slots, CHANGES, step.changes, step.left);
    }
    return false;
  }

  /** Resolves once `done()` holds (true) or `timeoutMs` passed (false), never blocking this thread. */
  async untilAsync(done: () => boolean, timeoutMs: number): Promise<boolean> {
    for (const step of this.waits(done, timeoutMs)) {
      if (typeof step === 'boolean') return step;
      const waiting = Atomics.waitAsync(this.slots, CHANGES, step.changes, step.left);
      if (waiting.async) await waiting.value;
    }
    return false;
  }

  /** The steps of a wait: whether it is over (done, or out of time), else what to wait on next and how long. */
  private *waits(done: () => boolean, timeoutMs: number): Generator<boolean | { changes: bigint; left: number }> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const changes = Atomics.load(this.slots, CHANGES);
      if (done()) return yield true;
      const left = deadline - performance.now();
      if (left <= 0) return yield false;
      yield { changes, left };
    }
  }

  private set(status: (typeof STATUSES)[number]): void {
    Atomics.store(this.slots, STATUS, BigInt(STATUSES.indexOf(status)));
    this.changed();
  }

  private changed(): void {
    Atomics.add(this.slots, CHANGES, 1n);
    Atomics.notify(this.slots, CHANGES);
  }
}
