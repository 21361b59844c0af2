import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { CatchUp } from './callIndex';
import { catchUpIndexFile, indexFileWatermark } from './indexFile';
import { IndexState, type IndexThreadRequest, type IndexWorkerData } from './indexState';

/** How long a reader waits for the index thread to open the index (a rebuild of a large log takes seconds, as it did at the gate's start). */
const OPEN_WAIT_MS = 120_000;
/** How long a reader waits for the index to fold what was committed; past it, it reads the index as it is (`behind()` says how far). */
const CURRENT_WAIT_MS = 10_000;
/** How long closing waits for the last fold. */
const CLOSE_WAIT_MS = 10_000;
/**
 * How long after the first commit an index thread that nothing has read yet starts. Until then a
 * reader in another process (`toolgate audit export`) finds the index behind, and is told so.
 */
export const START_AFTER_COMMIT_MS = 5_000;

/** The index database beside an audit database: `audit.db` → `audit-index.db`. */
export function indexPathFor(auditPath: string): string {
  return `${auditPath.replace(/\.db$/, '')}-index.db`;
}

/**
 * The gate's side of the index thread (indexWorker.ts), which keeps the explorer's call index in its
 * own database, off the gate's thread: told after each group commit (one message, and none while a
 * fold it asked for is still to come), and waited for only when a reader needs the index current.
 *
 * The thread starts when it is needed: at once when the index does not end where the log does (a
 * gate killed before folding, an index of another log), else when something reads the index or
 * START_AFTER_COMMIT_MS after the first commit. A gate that closes before then (a check, one call)
 * folds its few records itself, so it never loads the thread (about 0.4 s of CPU and 10 MB) and
 * still leaves the index current.
 */
export class IndexThread {
  private readonly state = new IndexState();
  private worker: Worker | undefined;
  private startTimer: NodeJS.Timeout | undefined;
  /** The seq the last fold was asked for at. */
  private requested = 0;

  constructor(
    private readonly auditPath: string,
    private readonly indexPath: string,
    private readonly workerFile: string,
    logEnd: number,
    private readonly startAfterCommitMs = START_AFTER_COMMIT_MS,
  ) {
    if (!existsSync(workerFile)) {
      // Without the built worker the log is written all the same; readers build an index in memory.
      this.state.fail();
      return;
    }
    // Behind the log (a gate killed before folding), or past its end (an index of another log, a
    // log restored from a copy): the thread starts now and catches up or rebuilds, off this thread.
    if (indexFileWatermark(indexPath) !== logEnd) this.start();
  }

  private start(): void {
    clearTimeout(this.startTimer);
    this.startTimer = undefined;
    if (this.worker || this.state.status() !== 'starting') return;
    const workerData: IndexWorkerData = { auditPath: this.auditPath, indexPath: this.indexPath, shared: this.state.shared };
    // The folds' garbage is collected before the thread's heap grows: its live heap is about 12 MB,
    // and V8 let it reach 40 MB of mostly garbage under load. A thread past the bound fails like any
    // failed index (readers build one in memory); the log is written all the same.
    this.worker = new Worker(this.workerFile, { workerData, resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 } });
    // The index thread never keeps a process alive: whatever it has not folded is caught up at the next start.
    this.worker.unref();
    this.worker.on('error', () => this.state.fail());
    this.worker.on('exit', () => {
      if (this.state.status() !== 'closed') this.state.fail();
    });
  }

  /** Whether the index thread keeps the index (false once it failed, or without one). */
  get working(): boolean {
    const status = this.state.status();
    return status === 'starting' || status === 'open';
  }

  /** Records up to `seq` are committed: asks for a fold, unless one asked for earlier has not been done yet. */
  committed(seq: number): void {
    if (!this.worker) {
      // The thread catches up with every commit when it opens: until then the pending start is all there is to keep.
      if (this.working) this.startTimer ??= setTimeout(() => this.start(), this.startAfterCommitMs).unref();
      return;
    }
    if (!this.working || this.requested > this.state.watermark()) return;
    this.requested = seq;
    this.post({ type: 'fold', now: false });
  }

  /** Blocks until the index holds every record up to `seq`, the thread failed, or CURRENT_WAIT_MS passed. */
  current(seq: number): void {
    if (!this.opened()) return;
    if (this.state.watermark() >= seq) return;
    this.requested = seq;
    this.post({ type: 'fold', now: true });
    this.state.waitUntil(() => this.state.watermark() >= seq || !this.working, CURRENT_WAIT_MS);
  }

  /**
   * Resolves once the index is open and holds every record up to `seq` (or the thread failed, or
   * the waits ran out), while the gate's thread keeps serving calls: an explorer asking during the
   * rebuild of a large log waits for it without holding up the gate.
   */
  async ready(seq: number): Promise<void> {
    this.start();
    await this.state.untilAsync(() => this.state.status() !== 'starting', OPEN_WAIT_MS);
    if (this.state.status() !== 'open' || this.state.watermark() >= seq) return;
    this.requested = seq;
    this.post({ type: 'fold', now: true });
    await this.state.untilAsync(() => this.state.watermark() >= seq || !this.working, CURRENT_WAIT_MS);
  }

  /** What opening the index did (waiting for it, as a reader does), or undefined if it could not be opened. */
  catchUp(): CatchUp | undefined {
    return this.opened() ? this.state.catchUp() : undefined;
  }

  /** Folds what is left and stops the thread. Idempotent. */
  close(): void {
    if (!this.worker) {
      // A start still pending means records were committed with no thread to fold them: folded here, a few at most (see the class).
      const committed = this.startTimer !== undefined;
      clearTimeout(this.startTimer);
      this.startTimer = undefined;
      if (this.state.status() !== 'starting') return;
      if (committed) catchUpIndexFile(this.auditPath, this.indexPath);
      this.state.closed();
      return;
    }
    if (this.state.status() === 'closed') return;
    if (this.working) {
      this.post({ type: 'close' });
      this.state.waitUntil(() => !this.working, CLOSE_WAIT_MS);
    }
    void this.worker.terminate();
  }

  /** Waits for the index to be open; false when it could not be. */
  private opened(): boolean {
    this.start();
    this.state.waitUntil(() => this.state.status() !== 'starting', OPEN_WAIT_MS);
    return this.state.status() === 'open';
  }

  private post(request: IndexThreadRequest): void {
    this.worker?.postMessage(request);
  }
}
