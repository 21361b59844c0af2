import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { GENESIS_HASH } from '../../shared/audit';
import type { ChainWalk } from './chainWalk';
import type { ChainStretch } from './chainWorker';

/** Below this many records one thread is quicker than starting workers. */
const PARALLEL_FROM = 100_000;

/**
 * Walks the chain of records 1..lastSeq in as many worker threads as there are cores (at most 4),
 * each over its own stretch of seqs, then joins them: each stretch's first prevHash must be the hash
 * the stretch before it ends with (the first one's, the genesis hash) and start where it ended.
 * Only a clean walk is answered: on any finding (a broken record, a gap, a stretch that does not
 * join) it returns undefined and the caller walks in one thread, which names the first bad record
 * exactly as before. Undefined too when it is not worth it (a small log, one core) or the worker
 * entry is not built.
 */
export async function walkChainInParallel(options: { path: string; lastSeq: number; workerFile: string; minRecords?: number; threads?: number }): Promise<ChainWalk | undefined> {
  const threads = options.threads ?? Math.min(4, availableParallelism());
  if (options.lastSeq < (options.minRecords ?? PARALLEL_FROM) || threads < 2 || !existsSync(options.workerFile)) return undefined;
  const size = Math.ceil(options.lastSeq / threads);
  const stretches: ChainStretch[] = Array.from({ length: threads }, (_, i) => ({ path: options.path, from: i * size + 1, to: i === threads - 1 ? Number.MAX_SAFE_INTEGER : (i + 1) * size }));
  let walks: ChainWalk[];
  try {
    walks = await Promise.all(stretches.map((stretch) => walkInWorker(options.workerFile, stretch)));
  } catch {
    return undefined;
  }
  let records = 0;
  let lastHash = GENESIS_HASH;
  let lastSeq = 0;
  for (const [i, walk] of walks.entries()) {
    if (!walk.ok) return undefined;
    if (walk.records === 0) {
      // The log ended in the stretch before: every later one must be empty too.
      if (walks.slice(i).some((later) => later.records > 0)) return undefined;
      break;
    }
    const stretch = stretches[i]!;
    if (walk.firstPrevHash !== lastHash || lastSeq !== stretch.from - 1) return undefined;
    records += walk.records;
    lastHash = walk.lastHash!;
    lastSeq = walk.lastSeq;
  }
  return { ok: true, records, lastSeq, lastHash };
}

function walkInWorker(workerFile: string, stretch: ChainStretch): Promise<ChainWalk> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerFile, { workerData: stretch });
    worker.once('message', (walk: ChainWalk) => {
      resolve(walk);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the chain worker exited (${code}) without an answer`)));
  });
}
