/**
 * A worker thread's entry (out/main/walFlushWorker.js): copies the audit database's write-ahead log
 * into the database file when asked (a passive checkpoint: it waits for no reader or writer). Done
 * here, its fsyncs no longer stop the gate's thread for 10–30 ms every few hundred commits. See
 * walFlusher.ts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from './sqlite';

/** What the worker answers for each flush: the log's frames, and how many of them are now in the database file. */
export interface FlushReply {
  ok: boolean;
  logFrames?: number;
  copiedFrames?: number;
  error?: string;
}

/** What the worker is started with: the database, and a flag it sets once its connection is closed. */
export interface FlushWorkerData {
  path: string;
  closed: SharedArrayBuffer;
}

function serve({ path, closed }: FlushWorkerData): void {
  const db = openDatabase(path);
  const flag = new Int32Array(closed);
  parentPort!.on('message', (message: 'flush' | 'close') => {
    if (message === 'close') {
      db.close();
      // The gate's thread waits for this before it closes its own connection, the last one, which
      // then copies what is left and removes the log file before its close returns.
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      parentPort!.close();
      return;
    }
    try {
      const row = db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() as { log: number; checkpointed: number };
      parentPort!.postMessage({ ok: true, logFrames: row.log, copiedFrames: row.checkpointed } satisfies FlushReply);
    } catch (error) {
      parentPort!.postMessage({ ok: false, error: (error as Error).message } satisfies FlushReply);
    }
  });
}

if (parentPort && workerData) serve(workerData as FlushWorkerData);
