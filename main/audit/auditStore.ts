import { chmodSync, existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { AuditKindSchema, GENESIS_HASH, type AuditKind, type AuditRecord, type AuditVerifyReport } from '../../shared/audit';
import { canonicalize, toWellFormedJson } from '../../shared/canonicalJson';
import { HeadWriter, readHead } from './headAnchor';
import { recordHash } from './recordHash';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS audit (
  seq INTEGER PRIMARY KEY,
  call_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  time TEXT NOT NULL,
  payload TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_call ON audit(call_id);
CREATE TRIGGER IF NOT EXISTS audit_no_update BEFORE UPDATE ON audit
  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_no_delete BEFORE DELETE ON audit
  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
`;

interface Row {
  seq: number;
  call_id: string;
  kind: string;
  time: string;
  payload: string;
  prev_hash: string;
  hash: string;
}

function toRecord(row: Row): AuditRecord {
  return {
    seq: row.seq,
    callId: row.call_id,
    kind: row.kind as AuditKind,
    time: row.time,
    payload: JSON.parse(row.payload) as unknown,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

/** Options of the audit store. */
export interface AuditStoreOptions {
  /** The SQLite file. */
  path: string;
  /** The head anchor file (the last seq and hash written), kept beside the database. */
  headPath: string;
  /** Open for reading only (audit verify / list from the CLI while a gate runs). */
  readonly?: boolean;
  /** The clock, for tests. */
  now?: () => Date;
  /**
   * Takes secrets out of a payload before it is written: the last line of defence, for a record
   * whose writer forgot to (the hash chain makes a written secret impossible to remove).
   */
  redact?: (payload: unknown) => unknown;
}

/** The append-only, hash-chained audit log in SQLite (WAL). */
export class AuditStore {
  private readonly db: Database.Database;
  private readonly head: HeadWriter | undefined;
  private readonly listeners = new Set<(record: AuditRecord) => void>();
  private readonly insert: Database.Statement | undefined;
  private last: { seq: number; hash: string };
  private readonly now: () => Date;
  private closed = false;

  constructor(private readonly options: AuditStoreOptions) {
    this.now = options.now ?? (() => new Date());
    this.db = new Database(options.path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
    if (!options.readonly) {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.exec(SCHEMA);
      // The log is the person's record of what their agents did: readable by them alone.
      for (const file of [options.path, `${options.path}-wal`, `${options.path}-shm`]) {
        if (existsSync(file)) chmodSync(file, 0o600);
      }
      this.insert = this.db.prepare(
        'INSERT INTO audit (seq, call_id, kind, time, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)',
      );
      this.head = new HeadWriter(options.headPath);
    }
    const row = this.db.prepare('SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1').get() as
      | { seq: number; hash: string }
      | undefined;
    this.last = row ?? { seq: 0, hash: GENESIS_HASH };
  }

  /** Appends one record, chained to the previous one, and tells the listeners. */
  append(entry: { callId: string; kind: AuditKind; payload: unknown }): AuditRecord {
    if (!this.insert || this.closed) throw new Error('the audit log is closed or read-only');
    const payload = entry.payload ?? null;
    const payloadJson = canonicalize(toWellFormedJson(this.options.redact ? this.options.redact(payload) : payload));
    const fields = {
      seq: this.last.seq + 1,
      callId: entry.callId,
      kind: entry.kind,
      time: this.now().toISOString(),
      payload: JSON.parse(payloadJson) as unknown,
    };
    const hash = recordHash(this.last.hash, fields);
    this.insert.run(fields.seq, fields.callId, fields.kind, fields.time, payloadJson, this.last.hash, hash);
    const record: AuditRecord = { ...fields, prevHash: this.last.hash, hash };
    this.last = { seq: fields.seq, hash };
    this.head?.write(this.last);
    for (const listener of [...this.listeners]) {
      try {
        listener(record);
      } catch {
        // a listener's failure never loses a record
      }
    }
    return record;
  }

  /** The newest records first, at most `limit`, optionally only those below `beforeSeq`. */
  list(query: { limit: number; beforeSeq?: number }): AuditRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM audit WHERE seq < ? ORDER BY seq DESC LIMIT ?')
      .all(query.beforeSeq ?? Number.MAX_SAFE_INTEGER, query.limit) as Row[];
    return rows.map(toRecord);
  }

  /** Every record of one call, oldest first. */
  forCall(callId: string): AuditRecord[] {
    return (this.db.prepare('SELECT * FROM audit WHERE call_id = ? ORDER BY seq').all(callId) as Row[]).map(toRecord);
  }

  /** Listens for appended records; returns the unsubscribe function. */
  onAppend(listener: (record: AuditRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Walks the whole chain: seqs without gaps from 1, each prevHash the hash before it, each hash
   * recomputed, and the last record matching the head anchor (so a cut tail shows).
   */
  verify(): AuditVerifyReport {
    let expected = { seq: 1, prevHash: GENESIS_HASH };
    let records = 0;
    const rows = this.db.prepare('SELECT * FROM audit ORDER BY seq').iterate() as IterableIterator<Row>;
    for (const row of rows) {
      const problem = checkRow(row, expected);
      if (problem) return { ok: false, records, firstBadSeq: problem.seq, reason: problem.reason };
      records++;
      expected = { seq: row.seq + 1, prevHash: row.hash };
    }
    const head = readHead(this.options.headPath);
    if (head && head.seq >= expected.seq) {
      return {
        ok: false,
        records,
        firstBadSeq: expected.seq,
        reason: `the log ends at seq ${expected.seq - 1} but the gate wrote up to seq ${head.seq}: records were cut from its end`,
      };
    }
    if (head && head.seq > 0) {
      const row = this.db.prepare('SELECT hash FROM audit WHERE seq = ?').get(head.seq) as { hash: string } | undefined;
      if (row?.hash !== head.hash) {
        return { ok: false, records, firstBadSeq: head.seq, reason: `record ${head.seq} is not the one the gate wrote last` };
      }
    }
    return { ok: true, records };
  }

  /** Closes the database. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.head?.close();
    this.db.close();
  }
}

function checkRow(row: Row, expected: { seq: number; prevHash: string }): { seq: number; reason: string } | undefined {
  if (row.seq !== expected.seq) {
    return row.seq > expected.seq
      ? { seq: expected.seq, reason: `record ${expected.seq} is missing (the next one is ${row.seq})` }
      : { seq: row.seq, reason: `record ${row.seq} is out of order` };
  }
  if (row.prev_hash !== expected.prevHash) {
    return { seq: row.seq, reason: `record ${row.seq} does not link to the record before it` };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    return { seq: row.seq, reason: `record ${row.seq} has a payload that is not JSON` };
  }
  const kind = AuditKindSchema.safeParse(row.kind);
  if (!kind.success) return { seq: row.seq, reason: `record ${row.seq} has an unknown kind ${JSON.stringify(row.kind)}` };
  const hash = recordHash(row.prev_hash, { seq: row.seq, callId: row.call_id, kind: kind.data, time: row.time, payload });
  if (hash !== row.hash) return { seq: row.seq, reason: `record ${row.seq} was changed after it was written (its hash does not match)` };
  return undefined;
}
