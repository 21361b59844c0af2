import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { FlushReply } from './walFlushWorker';
import type { SqliteDatabase } from './sqlite';

/**
 * Commits between two copies of the write-ahead log into the database file: about SQLite's own
 * 1000-page threshold at the few pages a group commit writes. A quiet gate's last records stay in
 * the log file until it closes, as they did when SQLite copied them itself.
 */
const FLUSH_EVERY_COMMITS = 256;

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
      return new WalFlusher(db, new Worker(workerFile, { workerData: path }));
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

  /** Ends the worker; the gate's connection copies what is left when it closes, as SQLite does. */
  close(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.worker.postMessage('close');
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
