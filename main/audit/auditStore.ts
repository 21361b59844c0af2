import { existsSync } from 'node:fs';
import { FIRST_KINDS, GENESIS_HASH, type AuditKind, type AuditRecord, type AuditVerifyReport, type OpenCall } from '../../shared/audit';
import { stepsOfAll } from '../../shared/auditSteps';
import { LONE_SURROGATE } from '../../shared/canonicalJson';
import { CallIndex, logIdOf, type CatchUp } from './callIndex';
import { openAuditDatabase, recordOfRow, recordsNotWritten, type AuditDurability } from './auditDatabase';

export type { AuditDurability } from './auditDatabase';
import { anchorFinding, missingDatabaseFinding, refuseAnchorDamage } from './anchorCheck';
import { anchorNotWritten, HeadWriter, readAnchor } from './headAnchor';
import { closedThroughOf, noteClosedThrough } from './closedThrough';
import { IndexThread, indexPathFor } from './indexThread';
import { findOpenCalls } from './openCalls';
import { walkChainInParallel } from './parallelChain';
import { recordsInOrder, walkChain, walkOnFrom, type ChainWalk, type StoredRow } from './chainWalk';
import { fastBlake3Hex } from './fastBlake3';
import { storedCanonicalText, storedLeafHash } from './recordLeaf';
import { openDatabase, type SqliteDatabase } from './sqlite';
import { PreparedStep, storedPayload, storedStepsPayload } from './preparedStep';
import { builtAssets } from '../state/paths';

/**
 * Records queued at most before append() commits them itself: a writer that never lets the event
 * loop turn (a bulk import, a bench) keeps a bounded queue, and a bounded transaction.
 */
const MAX_QUEUED = 4096;

/**
 * How long records nobody waits for may stay queued: a reading tool's first records and its last
 * then share one commit when it answers within this, instead of one commit each. Only records no
 * agent has had an answer for, and no changing tool has waited for, wait this long; a gate killed
 * meanwhile loses them (the call had no answer and changed nothing).
 */
const COMMIT_WINDOW_MS = 5;

/** Options of the audit store. */
export interface AuditStoreOptions {
  /** The SQLite file. */
  path: string;
  /** The head anchor file (the last seq and hash written), kept beside the database. */
  headPath: string;
  /** Open for reading only (audit verify / list from the CLI while a gate runs). */
  readonly?: boolean;
  /**
   * Open for writing although the head anchor is missing: a person accepted the log as it is
   * (the caller then appends the `anchor-accepted` record, which writes a new anchor).
   */
  acceptMissingAnchor?: boolean;
  /** The explorer's call index, a database of its own (default: beside `path`, `audit.db` → `audit-index.db`). */
  indexPath?: string;
  /** The built index thread's entry (default: out/main/indexWorker.js). */
  indexWorkerFile?: string;
  /** How long after the first commit an index thread nothing has read yet starts (default START_AFTER_COMMIT_MS). */
  indexStartAfterCommitMs?: number;
  /** The clock, for tests. */
  now?: () => Date;
  /**
   * Takes secrets out of a payload before it is written: the last line of defence, for a record
   * whose writer forgot to (the hash chain makes a written secret impossible to remove).
   */
  redact?: (payload: unknown) => unknown;
  /** What a committed record survives: the gate's death ("process", the default) or also a power loss ("power"). See AuditDurability. */
  durability?: AuditDurability;
}

/** A record appended but not yet committed: what its row and its listeners need. */
interface QueuedRecord {
  record: AuditRecord;
  payloadJson: string;
  canonicalText: string;
}

/** Someone waiting (durable()) for the records queued when they asked. */
interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

/** What watchCommit() tells: why the watched records' commit failed, once it has. */
export interface CommitWatch {
  failure: Error | undefined;
}

/** The append-only, hash-chained audit log in SQLite (WAL). */
export class AuditStore {
  private readonly db: SqliteDatabase;
  private readonly head: HeadWriter | undefined;
  private readonly listeners = new Set<(record: AuditRecord, canonicalText: string) => void>();
  private readonly insert: ReturnType<SqliteDatabase['prepare']> | undefined;
  /** The chain's head as appended: the newest record, committed or queued. */
  private last: { seq: number; hash: string };
  /** The newest record in the database: where the chain goes back to when a commit fails. */
  private committed: { seq: number; hash: string };
  /** Records appended since the last commit, in seq order. */
  private queue: QueuedRecord[] = [];
  /** Waiters for the queued records: settled by the commit that writes them. */
  private waiters: Waiter[] = [];
  /** Why the last commit failed, while nothing was committed since: a durable() with nothing queued then rejects. */
  private lastFailure: Error | undefined;
  /** Writers of steps kept back until someone awaits durable() (holdUntilDurable). */
  private readonly holds = new Set<() => void>();
  /** A commit is due when the event loop turns: someone waits for it (durable()). */
  private commitSoon = false;
  /**
   * The commit at the end of the window, for records nobody hurried (append() alone, committed()).
   * Left to run when an earlier commit took the records (it then finds nothing to write): the
   * record that comes next is within the window of the same timer, and a call answered at once is
   * not charged a timer made and cleared for it.
   */
  private windowTimer: NodeJS.Timeout | undefined;
  /** The thread that folds committed records into the call index (a writable store's). */
  private indexThread: IndexThread | undefined;
  /** This thread's read-only connection to the index database, once a reader needed it. */
  private indexDb: SqliteDatabase | undefined;
  /** False for a database file without the audit table (an empty or foreign file, opened read-only). */
  private readonly hasTable: boolean;
  private readonly now: () => Date;
  private closed = false;
  /** The explorer's call index as this thread reads it (the index database, or in memory for a log without one); made on first use. */
  private index: CallIndex | undefined;

  constructor(private readonly options: AuditStoreOptions) {
    this.now = options.now ?? (() => new Date());
    const readonly = options.readonly ?? false;
    // Checked before the database is created, so a deleted one is reported rather than replaced.
    const anchor = readAnchor(options.headPath);
    if (!readonly && !existsSync(options.path)) refuseAnchorDamage(missingDatabaseFinding(anchor, options.path), options.path);
    this.db = openAuditDatabase(options.path, { readonly, durability: options.durability ?? 'process' });
    try {
      this.hasTable = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit'").get() !== undefined;
      const row = this.hasTable
        ? (this.db.prepare('SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1').get() as unknown as { seq: number; hash: string } | undefined)
        : undefined;
      this.last = row ?? { seq: 0, hash: GENESIS_HASH };
      this.committed = this.last;
      if (!readonly) {
        // Writing moves the anchor: a gate that wrote past damage would erase the evidence of it.
        const finding = anchorFinding(anchor, this.logEnd(), options.headPath);
        if (!(finding?.problem === 'anchor-missing' && options.acceptMissingAnchor)) refuseAnchorDamage(finding, options.path);
        this.insert = this.db.prepare(
          'INSERT INTO audit (seq, call_id, kind, time, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)',
        );
        this.head = new HeadWriter(options.headPath, this.last, { sync: options.durability === 'power' });
        this.indexThread = new IndexThread(options.path, this.indexPath(), options.indexWorkerFile ?? builtAssets().indexWorker, this.last.seq, options.indexStartAfterCommitMs);
      }
    } catch (error) {
      this.db.close();
      throw error;
    }
  }

  /**
   * Appends one record: chained to the previous one at once (its seq and hash are final, the
   * record is returned) and queued for the next group commit, which writes every record queued
   * by then in one transaction: when the event loop turns after someone asked for durable(), or at
   * the end of the commit window. durable() says when it is in the log.
   */
  append(entry: { callId: string; kind: AuditKind; payload: unknown }): AuditRecord {
    if (!this.insert || this.closed) throw new Error('the audit log is closed or read-only');
    const { redact } = this.options;
    const { text: payloadJson, value: payloadValue } = storedStepsPayload(entry.payload, redact) ?? storedPayload(entry.payload ?? null, redact);
    const fields = {
      seq: this.last.seq + 1,
      callId: entry.callId,
      kind: entry.kind,
      time: this.now().toISOString(),
      payload: payloadValue,
    };
    if (LONE_SURROGATE.test(fields.callId)) throw new TypeError('$.callId: string holds a lone surrogate');
    // The canonical text recordHash would build, spelled from the canonical payload text (the same
    // string: test/audit/recordLeaf.test.ts), so a record is canonicalized once; the Merkle leaf is made of it too.
    const canonicalText = storedCanonicalText({ seq: fields.seq, call_id: fields.callId, kind: fields.kind, time: fields.time, payload: payloadJson });
    const hash = fastBlake3Hex(this.last.hash + canonicalText);
    const record: AuditRecord = { ...fields, prevHash: this.last.hash, hash };
    this.queue.push({ record, payloadJson, canonicalText });
    this.last = { seq: fields.seq, hash };
    if (this.queue.length >= MAX_QUEUED) this.commitQueued();
    else this.windowTimer ??= setTimeout(() => {
      this.windowTimer = undefined;
      this.commitQueued();
    }, COMMIT_WINDOW_MS);
    return record;
  }

  /**
   * Canonicalizes one step of a call ahead of its record, as append() would inside `{ steps }`: a
   * payload `{ steps }` holding it is written exactly as if the step had been given as it was. The
   * executor prepares a call's steps while its tool runs, so the record at the call's end is made of
   * them at once. Throws as append() would on a step with no JSON form.
   */
  prepareStep(step: unknown): PreparedStep {
    const { text, value } = storedPayload(step, this.options.redact);
    return new PreparedStep(text, value);
  }

  /**
   * Resolves once every record appended before it was called is committed and the head anchor
   * names the newest; rejects with ERUNTIME when that commit failed (those records are not in the
   * log). With nothing queued it settles at once: resolved, or rejected while the last commit failed
   * and none succeeded since. `now` commits at once instead of when the event loop turns, for a
   * caller that knows no other record is on its way this turn (the only call under way).
   */
  durable(options: { now?: boolean } = {}): Promise<void> {
    this.writeHeld();
    if (this.queue.length === 0) return this.lastFailure ? Promise.reject(this.lastFailure) : Promise.resolve();
    const committed = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (options.now) this.commitQueued();
    else if (!this.commitSoon) {
      // Once per burst: every record appended before the event loop turns again shares the commit.
      this.commitSoon = true;
      setImmediate(() => this.commitQueued());
    }
    return committed;
  }

  /**
   * Calls `write` (which appends a call's steps kept back) at the start of the next durable(), or
   * when the store closes, so whoever awaits durable() is never ahead of them; returns the way to let
   * go of it (the steps were written otherwise).
   */
  holdUntilDurable(write: () => void): () => void {
    this.holds.add(write);
    return () => this.holds.delete(write);
  }

  /** Writes every step kept back (holdUntilDurable); a writer that fails loses nothing of the others. */
  private writeHeld(): void {
    if (this.holds.size === 0 || this.closed) return;
    const writes = [...this.holds];
    this.holds.clear();
    for (const write of writes) {
      try {
        write();
      } catch {
        // its commit's waiters hear why; the other calls' steps are still written
      }
    }
  }

  /**
   * Watches the commit that writes the records queued now, without hurrying it (it comes at the end
   * of the window, or sooner when someone asks for durable()): `failure` is set the moment that
   * commit fails, so a caller can tell, without waiting, whether those records are lost.
   */
  watchCommit(): CommitWatch {
    const watch: CommitWatch = { failure: this.queue.length === 0 ? this.lastFailure : undefined };
    if (this.queue.length > 0) this.waiters.push({ resolve: () => {}, reject: (error) => (watch.failure = error) });
    return watch;
  }

  /**
   * The group commit: writes the queued records in one transaction, moves the head anchor once,
   * settles the waiters, tells the listeners in seq order, and leaves the records for the call
   * index's next fold. A failed commit leaves the log as it was: the chain goes back to its last committed
   * record, so the next append chains from what is really there, and the waiters are rejected.
   */
  private commitQueued(): void {
    this.commitSoon = false;
    if (this.queue.length === 0 || !this.insert) return;
    const batch = this.queue;
    const waiters = this.waiters;
    this.queue = [];
    this.waiters = [];
    try {
      // One record is its own transaction; several share one.
      const inTransaction = batch.length > 1;
      if (inTransaction) this.db.exec('BEGIN');
      for (const { record, payloadJson } of batch) {
        this.insert.run(record.seq, record.callId, record.kind, record.time, payloadJson, record.prevHash, record.hash);
      }
      if (inTransaction) this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      this.last = this.committed;
      const failure = recordsNotWritten(batch[0]!.record.seq, batch.at(-1)!.record.seq, this.options.path, error);
      this.lastFailure = failure;
      for (const waiter of waiters) waiter.reject(failure);
      return;
    }
    this.committed = this.last;
    this.lastFailure = undefined;
    this.indexThread?.committed(this.committed.seq);
    let anchorFailure: Error | undefined;
    try {
      this.head?.write(this.committed);
    } catch (error) {
      anchorFailure = anchorNotWritten(this.options.headPath, this.committed.seq, error);
    }
    for (const waiter of waiters) {
      if (anchorFailure) waiter.reject(anchorFailure);
      else waiter.resolve();
    }
    for (const { record, canonicalText } of batch) {
      for (const listener of [...this.listeners]) {
        try {
          listener(record, canonicalText);
        } catch {
          // a listener's failure never loses a record
        }
      }
    }
  }

  /** The newest records first, at most `limit`, optionally only those below `beforeSeq`, or of one call. */
  list(query: { limit: number; beforeSeq?: number; callId?: string }): AuditRecord[] {
    if (!this.hasTable) return [];
    this.commit();
    const before = query.beforeSeq ?? Number.MAX_SAFE_INTEGER;
    const rows = (
      query.callId === undefined
        ? this.db.prepare('SELECT * FROM audit WHERE seq < ? ORDER BY seq DESC LIMIT ?').all(before, query.limit)
        : this.db.prepare('SELECT * FROM audit WHERE call_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?').all(query.callId, before, query.limit)
    ) as unknown as StoredRow[];
    return rows.map(recordOfRow);
  }

  /** Ids of the calls most recently invoked, newest first, at most `limit`. */
  recentCallIds(limit: number): string[] {
    if (!this.hasTable) return [];
    this.commit();
    const rows = this.db
      .prepare(`SELECT call_id FROM audit WHERE kind IN (${FIRST_KINDS.map(() => '?').join(', ')}) ORDER BY seq DESC LIMIT ?`)
      .all(...FIRST_KINDS, limit) as unknown as Array<{ call_id: string }>;
    return rows.map((row) => row.call_id);
  }

  /**
   * Every step of one call, oldest first, each as a record of its step's kind carrying the seq and
   * hashes of the record that holds it (see stepsOf): the same reading for a log of one record per
   * step and for one whose records hold several.
   */
  forCall(callId: string): AuditRecord[] {
    return stepsOfAll(this.recordsOfCall(callId));
  }

  /** The stored records of one call, oldest first, as they are in the chain. */
  recordsOfCall(callId: string): AuditRecord[] {
    this.commit();
    return (this.db.prepare('SELECT * FROM audit WHERE call_id = ? ORDER BY seq').all(callId) as unknown as StoredRow[]).map(recordOfRow);
  }

  /** The log's random id, made when it was created (undefined for a log from before ids, never written since). */
  logId(): string | undefined {
    return logIdOf(this.db);
  }

  /** The Merkle leaf hash of every record, in log order (see recordLeaf.ts), read as it streams. */
  *leafHashes(): Generator<Buffer> {
    if (!this.hasTable) return;
    this.commit();
    for (const row of recordsInOrder(this.db)) yield storedLeafHash(row);
  }

  /**
   * The explorer's call index over this log, current with every record committed (a writable store
   * waits for its index thread to fold them). A read-only store uses the index database as it is (it
   * may be behind a running gate's log: `behind()` says by how much); a log without one (written by
   * an older gate, or its index thread failed) gets one built in memory on first use.
   */
  callIndex(): CallIndex {
    if (this.closed) throw new Error('the audit log is closed');
    this.commit();
    this.indexThread?.current(this.committed.seq);
    if (!this.index) {
      const path = this.indexPath();
      this.indexDb ??= existsSync(path) ? openDatabase(path, { readOnly: true }) : undefined;
      this.index = CallIndex.openReadOnly(this.db, this.indexDb);
    }
    return this.index;
  }

  /** Resolves once callIndex() can answer without blocking this thread: the index is open and current with what is committed. */
  async callIndexReady(): Promise<void> {
    if (this.closed) return;
    this.commit();
    await this.indexThread?.ready(this.committed.seq);
  }

  /** What opening the call index did when this store was opened for writing: nothing, a catch-up or a rebuild, and how long it took. */
  callIndexCatchUp(): CatchUp | undefined {
    return this.indexThread?.catchUp();
  }

  private indexPath(): string {
    return this.options.indexPath ?? indexPathFor(this.options.path);
  }

  /** Listens for appended records; returns the unsubscribe function. */
  onAppend(listener: (record: AuditRecord, canonicalText: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Walks the whole chain (or takes the walk `chain` done elsewhere, e.g. in parallel): seqs without gaps from 1, each prevHash the hash before it, each hash
   * recomputed; then the end of the log against the head anchor (so a cut tail or a missing or
   * damaged anchor shows); then lists the calls that have no closing record.
   */
  verify(chain?: ChainWalk, openCalls?: OpenCall[]): AuditVerifyReport {
    this.commit();
    const walked = chain ? walkOnFrom(this.db, chain, this.last.seq) : this.hasTable ? walkChain(recordsInOrder(this.db), { seq: 1, prevHash: GENESIS_HASH }) : { ok: true as const, records: 0, lastSeq: 0 };
    if (!walked.ok) return { ok: false, records: walked.records, firstBadSeq: walked.seq, reason: walked.reason, problem: 'chain' };
    const records = walked.records;
    const finding = anchorFinding(readAnchor(this.options.headPath), this.logEnd(walked.lastSeq), this.options.headPath);
    if (finding) return { ok: false, records, ...finding };
    const open = openCalls ?? this.openCalls();
    return open.length > 0 ? { ok: true, records, openCalls: open } : { ok: true, records };
  }

  /**
   * verify with a large log's chain walked in worker threads (`workerFile`, the built chain worker),
   * while this thread groups the calls without an end: the gate or the CLI stays free meanwhile, and
   * the two passes overlap. A small log, or any finding, is walked here, which names the first bad record.
   */
  async verifyInThreads(workerFile: string): Promise<AuditVerifyReport> {
    if (!this.hasTable) return this.verify();
    this.commit();
    const walking = walkChainInParallel({ path: this.options.path, lastSeq: this.last.seq, workerFile }).catch(() => undefined);
    const openCalls = this.openCalls();
    return this.verify(await walking, openCalls);
  }

  /** The newest seq in the log (0 when empty). */
  lastSeq(): number {
    return this.last.seq;
  }

  /** Calls with records but no closing one (under way, or left open by a gate that stopped), oldest first. */
  openCalls(): OpenCall[] {
    if (!this.hasTable) return [];
    this.commit();
    // Only the records after the last point every call was closed are grouped: a gate's start on a
    // log of a million calls grouped them all, for about 9 s.
    const closedThrough = closedThroughOf(this.db);
    return findOpenCalls(this.db, closedThrough <= this.last.seq ? closedThrough : 0);
  }

  /**
   * Commits what is queued now rather than when the event loop turns (a reader, or a checkpoint
   * signed at shutdown, must see every record appended before it asked). A failure is reported to
   * the waiters, as from the scheduled commit.
   */
  commit(): void {
    if (this.queue.length > 0) this.commitQueued();
  }

  /**
   * Ends each call the previous gate left open (it was killed, crashed or lost power) with an
   * `interrupted` record. For a gate's start, before any call can begin. Returns the records written.
   * Then notes that every call up to the log's end is closed, so the next start's search for open
   * calls groups only the records written after this point.
   */
  recordInterruptedCalls(): AuditRecord[] {
    const open = this.openCalls();
    let written: AuditRecord[] = [];
    if (open.length > 0) {
      const { time: gateLastWroteAt } = this.db.prepare('SELECT time FROM audit WHERE seq = ?').get(this.last.seq) as unknown as { time: string };
      written = open.map((call) =>
        this.append({
          callId: call.callId,
          kind: 'interrupted',
          payload: { reason: 'the gate stopped before this call ended', lastStep: call.lastKind, lastStepAt: call.lastTime, gateLastWroteAt },
        }),
      );
      this.commit();
    }
    // Every call is closed now, those ends in the log: the next start groups only what comes after.
    if (this.committed.seq === this.last.seq) noteClosedThrough(this.db, this.last.seq);
    return written;
  }

  /** The newest seq (the walked one, for verify) and a way to read a record's hash, for the anchor check. */
  private logEnd(lastSeq = this.last.seq) {
    const byHash = this.hasTable ? this.db.prepare('SELECT hash FROM audit WHERE seq = ?') : undefined;
    return { lastSeq, hashAt: (seq: number) => (byHash?.get(seq) as unknown as { hash: string } | undefined)?.hash };
  }

  /** Commits what is queued, then closes the database. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.writeHeld();
    this.commit();
    clearTimeout(this.windowTimer);
    this.windowTimer = undefined;
    this.indexThread?.close();
    this.closed = true;
    this.listeners.clear();
    this.head?.close();
    this.index?.close();
    this.indexDb?.close();
    this.db.close();
  }
}
