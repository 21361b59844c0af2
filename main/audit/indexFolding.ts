import type { AuditRecord } from '../../shared/audit';
import type { CallIndex } from './callIndex';
import type { SqliteDatabase } from './sqlite';

/**
 * How long committed records wait to be folded into the explorer's call index, and how many may
 * wait: folded later, a call's row and text are written about once (most calls have ended by then)
 * instead of once per commit, in a transaction of its own that no call waits for.
 */
const FOLD_DELAY_MS = 100;
const MAX_UNFOLDED = 4096;

/**
 * Records the timer's fold takes in one transaction (about 25 calls, 2–4 ms), the event loop
 * turning between slices: calls answered meanwhile do not wait behind the fold of the last hundred
 * milliseconds' calls, which took 10–30 ms in one piece. Smaller slices cost more in all (64
 * records: about 1.7× the fold time of one piece when calls come fast), larger ones hold longer.
 */
const FOLD_SLICE = 128;

/**
 * When the records a store committed are folded into its call index: a moment after their commit,
 * a slice at a time, or all at once when a reader needs the index current (or too many wait).
 */
export class IndexFolding {
  /** Committed records the call index has not folded yet, in seq order. */
  private unfolded: AuditRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The next slice of a fold under way (foldInSlices). */
  private slice: NodeJS.Immediate | undefined;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly index: CallIndex,
  ) {}

  /** Queues committed records: folded after FOLD_DELAY_MS, or at once past MAX_UNFOLDED. */
  committed(records: readonly AuditRecord[]): void {
    if (!this.index.writable) return;
    for (const record of records) this.unfolded.push(record);
    if (this.unfolded.length >= MAX_UNFOLDED) this.foldNow();
    else if (!this.slice) this.timer ??= setTimeout(() => this.foldInSlices(this.unfolded.length), FOLD_DELAY_MS);
  }

  /** Folds every record waiting, in one transaction: for a reader, or a store closing. */
  foldNow(): void {
    this.fold(Number.POSITIVE_INFINITY);
  }

  /**
   * The timer's fold: the `count` records waiting when it fired, FOLD_SLICE at a time, the event
   * loop turning between slices. Records committed meanwhile wait for the next timer, so a call
   * still open is not folded once per slice.
   */
  private foldInSlices(count: number): void {
    this.timer = undefined;
    this.slice = undefined;
    const slice = Math.min(count, FOLD_SLICE);
    this.fold(slice);
    if (count > slice && this.unfolded.length > 0) this.slice = setImmediate(() => this.foldInSlices(count - slice));
    else if (this.unfolded.length > 0) this.timer = setTimeout(() => this.foldInSlices(this.unfolded.length), FOLD_DELAY_MS);
  }

  /**
   * Folds the first `limit` records waiting, in a transaction of their own. The index's watermark
   * moves with them, so a gate stopped before a fold catches the index up at its next start; a
   * fold that fails leaves the index behind (it is caught up then), never the log.
   */
  private fold(limit: number): void {
    if (limit >= this.unfolded.length) {
      clearTimeout(this.timer);
      clearImmediate(this.slice);
      this.timer = undefined;
      this.slice = undefined;
    }
    if (this.unfolded.length === 0) return;
    const records = this.unfolded.splice(0, limit);
    try {
      this.db.exec('BEGIN');
      this.index.fold(records);
      this.db.exec('COMMIT');
    } catch {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      this.index.stopFolding();
    }
  }
}
