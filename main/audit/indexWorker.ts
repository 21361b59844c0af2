/**
 * A worker thread's entry (out/main/indexWorker.js): keeps the explorer's call index, in its own
 * database file, up to date with the audit log, so the gate's thread commits records and nothing
 * else. It reads committed records through its own read-only connection to the audit database. See
 * indexThread.ts for the other side and the shared state both use.
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { CallIndex } from './callIndex';
import { INDEX_THREAD_NICE, IndexState, type IndexThreadRequest, type IndexWorkerData } from './indexState';
import { openDatabase, type SqliteDatabase } from './sqlite';
import { openIndexDatabase } from './indexFile';

/**
 * How long committed records wait to be folded: folded later, a call's row and text are written
 * about once (most calls have ended by then) instead of once per group commit, and the full-text
 * index takes them in larger batches. Folding 300 calls at a time cost the thread about 57 µs of CPU
 * per call, 100 at a time 65 and 1,000 at a time 59 (a fold held longer holds its batch's rows in
 * memory longer: a second's added about 13 MB to the gate under 16 agents). A reader that
 * needs the index current has it folded at once (IndexThread.current), so only a reader of the file
 * in another process (the CLI) may find it up to this far behind, and is told so.
 */
const FOLD_DELAY_MS = 300;

/**
 * Copies the audit log's WAL back into its database after a fold, from a connection of this
 * thread's own: SQLite's passive checkpoint, which never waits for the gate nor makes it wait. When
 * the gate has gone quiet (an agent thinking between calls) it copies every frame, and the gate's
 * next commit starts the WAL over, so its own automatic checkpoint (past 1,000 pages: the write-back
 * and two fsyncs, about 5 ms on the gate's thread) is not reached. Under steady load this one ends a
 * few frames behind the gate's newest commits, and the gate's own checkpoint still comes, with less
 * left to copy. A failed one is left to the gate's.
 */
function checkpoint(db: SqliteDatabase | undefined): void {
  try {
    db?.exec('PRAGMA wal_checkpoint(PASSIVE)');
  } catch {
    // the gate's own automatic checkpoint does it
  }
}

/** A writable connection to the audit log for checkpoints alone; without one the gate's own checkpoint does them all. */
function checkpointConnection(auditPath: string): SqliteDatabase | undefined {
  try {
    return openDatabase(auditPath);
  } catch {
    return undefined;
  }
}

function run(data: IndexWorkerData): void {
  const state = new IndexState(data.shared);
  let auditDb: SqliteDatabase | undefined;
  /** Writable, for checkpoints only: it never writes a row (checkpointConnection). */
  let checkpointDb: SqliteDatabase | undefined;
  let indexDb: SqliteDatabase | undefined;
  let index: CallIndex | undefined;
  let timer: NodeJS.Timeout | undefined;
  const fold = () => {
    clearTimeout(timer);
    timer = undefined;
    if (!index || state.status() !== 'open') return;
    try {
      index.foldCommitted();
      state.folded(index.watermark());
    } catch {
      // The watermark stays before what failed; the next start catches up, and readers are told the index is behind.
      state.fail();
      return;
    }
    checkpoint(checkpointDb);
  };
  const close = () => {
    clearTimeout(timer);
    indexDb?.close();
    checkpointDb?.close();
    auditDb?.close();
    state.closed();
    parentPort?.close();
  };
  parentPort?.on('message', (request: IndexThreadRequest) => {
    if (request.type === 'close') {
      fold();
      return close();
    }
    if (request.now) fold();
    else timer ??= setTimeout(fold, FOLD_DELAY_MS);
  });
  try {
    auditDb = openDatabase(data.auditPath, { readOnly: true });
    checkpointDb = checkpointConnection(data.auditPath);
    indexDb = openIndexDatabase(data.indexPath);
    const opened = CallIndex.open(indexDb, auditDb);
    index = opened.index;
    state.opened(opened.catchUp, index.watermark());
    // Opening folded what was committed before the thread started: copied back like any fold.
    if (opened.catchUp.records > 0) checkpoint(checkpointDb);
  } catch {
    state.fail();
  }
}

if (parentPort && workerData) {
  // The index is kept in the background: the thread runs below the gate's priority (nice 10), so on
  // a busy machine the gate, its tools and its agents come first. Not at the lowest (19): there,
  // beside a few programs at the normal priority (a build, a test run), it got about 1.5 % of the
  // CPU, and its start took seconds, which the gate's close waited out (2–4 s with three busy loops
  // on 2 cores, against 0.5 s at 10), as would an explorer asking for the newest calls. Only on
  // Linux, where a thread has a priority of its own; elsewhere it would lower the whole gate's.
  if (process.platform === 'linux') {
    try {
      setPriority(INDEX_THREAD_NICE);
    } catch {
      // kept at the gate's priority where the system refuses
    }
  }
  run(workerData as IndexWorkerData);
}
