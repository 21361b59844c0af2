import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { FlushReply, FlushWorkerData } from './walFlushWorker';
import type { SqliteDatabase } from './sqlite';

/**
 * Commits between two copies of the write-ahead log into the database file: about SQLite's own
 * 1000-page threshold at the few pages a group commit writes. A quiet gate's last records stay in
 * the log file until it closes, as they did when SQLite copied them itself.
 */
const FLUSH_EVERY_COMMITS = 256;

/** How long close() waits for the worker's connection to close (it may be finishing a copy). */
const CLOSE_WAIT_MS = 2000;

/** SQLite's own default: a commit that finds this many pages in the log copies them itself. */
const AUTOCHECKPOINT_PAGES = 1000;

/**
 * Keeps the audit database's write-ahead log short from a worker thread (walFlushWorker.ts), so
 * that no commit on the gate's thread copies it, with the fsyncs that takes. The gate's connection
 * stops checkpointing by itself; should the worker fail, it takes that back up, and the log is
 * kept as before. Durability is unchanged: a commit is in the log when it returns either way.
 */
export class WalFlusher {
  private flushing = false;
  private commits = 0;
  private stopped = false;

  private constructor(
    private readonly db: SqliteDatabase,
    private readonly worker: Worker,
    /** Set by the worker once its connection is closed. */
    private readonly workerClosed: Int32Array,
  ) {
    db.exec('PRAGMA wal_autocheckpoint = 0');
    worker.unref();
    worker.on('message', (reply: FlushReply) => {
      this.flushing = false;
      if (!reply.ok) this.fallBack();
    });
    worker.on('error', () => this.fallBack());
    worker.on('exit', () => this.fallBack());
  }

  /** A flusher for the database `db` has open at `path`; undefined when the worker entry is not built (the connection checkpoints itself). */
  static start(db: SqliteDatabase, path: string, workerFile: string | undefined): WalFlusher | undefined {
    if (!workerFile || !existsSync(workerFile)) return undefined;
    try {
      const closed = new SharedArrayBuffer(4);
      const workerData: FlushWorkerData = { path, closed };
      return new WalFlusher(db, new Worker(workerFile, { workerData }), new Int32Array(closed));
    } catch {
      return undefined;
    }
  }

  /** Told after each commit: asks the worker to copy the log every FLUSH_EVERY_COMMITS commits, once the last copy is done. */
  committed(): void {
    if (this.stopped || this.flushing || ++this.commits < FLUSH_EVERY_COMMITS) return;
    this.commits = 0;
    this.flushing = true;
    this.worker.postMessage('flush');
  }

  /**
   * Ends the worker, waiting (at most CLOSE_WAIT_MS) until its connection is closed: the gate's,
   * closed next, is then the last one, which copies what is left and removes the log file before
   * the store's close() returns, so nothing touches the state folder after it.
   */
  close(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.worker.postMessage('close');
    Atomics.wait(this.workerClosed, 0, 0, CLOSE_WAIT_MS);
  }

  /** The worker failed or ended unasked: the gate's connection checkpoints by itself again. */
  private fallBack(): void {
    if (this.stopped) return;
    this.stopped = true;
    try {
      this.db.exec(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    } catch {
      // the database is closing
    }
    void this.worker.terminate();
  }
}
