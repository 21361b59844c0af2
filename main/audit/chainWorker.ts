/**
 * A worker thread's entry (out/main/chainWorker.js): walks one stretch of the audit chain in the
 * database read-only and posts the ChainWalk back. See parallelChain.ts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { recordsInOrder, walkChain } from './chainWalk';
import { loadFastBlake3 } from './fastBlake3';
import { openDatabase } from './sqlite';

/** What the worker is asked to walk. */
export interface ChainStretch {
  path: string;
  from: number;
  to: number;
}

async function walkStretch(stretch: ChainStretch): Promise<void> {
  await loadFastBlake3();
  const db = openDatabase(stretch.path, { readOnly: true });
  try {
    parentPort?.postMessage(walkChain(recordsInOrder(db, stretch.from, stretch.to), { seq: stretch.from, prevHash: undefined }));
  } finally {
    db.close();
  }
}

if (parentPort && workerData) void walkStretch(workerData as ChainStretch);
