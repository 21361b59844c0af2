import type { AuditKind, AuditRecord } from '../../shared/audit';
import { CLOSING_KINDS } from '../../shared/audit';
import { stepsOf } from '../../shared/auditSteps';
import type { CallRow } from '../../shared/explorer';
import { summarizeCall, type CallSummary } from './callSummary';
import { openDatabase, type SqliteDatabase } from './sqlite';

/** Bumped when the index's tables or what a row holds change: an index of another version is rebuilt. */
export const CALL_INDEX_VERSION = 2;

/** The `calls` columns, in CallRow's order. */
const COLUMNS = [
  'seq', 'call_id', 'last_seq', 'time', 'time_ms', 'tool', 'agent', 'session', 'source', 'tier', 'args_brief',
  'decision', 'decider', 'decided_detail', 'rule', 'outcome', 'error_code', 'waited_ms', 'ran_ms', 'duration_ms',
] as const;

/**
 * The call index: one row per call (its first record's seq is the key, so newest-first pages are a
 * walk down the primary key), one index per facet ending in seq (a facet value's calls come newest
 * first without a sort), and a trigram FTS5 table (case-insensitive substrings of three characters
 * or more) whose rowid is the call's seq, contentless (the text is in the records; the index only
 * finds it). Derived from the audit table and not part of its chain:
 * it may be dropped at any time and is rebuilt from the records.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS calls (
  seq INTEGER PRIMARY KEY,
  call_id TEXT NOT NULL UNIQUE,
  last_seq INTEGER NOT NULL,
  time TEXT NOT NULL,
  time_ms INTEGER NOT NULL,
  tool TEXT NOT NULL,
  agent TEXT,
  session TEXT,
  source TEXT,
  tier TEXT,
  args_brief TEXT NOT NULL,
  decision TEXT,
  decider TEXT,
  decided_detail TEXT,
  rule TEXT,
  outcome TEXT NOT NULL,
  error_code TEXT,
  waited_ms REAL,
  ran_ms REAL,
  duration_ms REAL
);
CREATE INDEX IF NOT EXISTS calls_tool ON calls(tool, seq);
CREATE INDEX IF NOT EXISTS calls_outcome ON calls(outcome, seq);
CREATE INDEX IF NOT EXISTS calls_decider ON calls(decider, seq);
CREATE INDEX IF NOT EXISTS calls_session ON calls(session, seq);
CREATE INDEX IF NOT EXISTS calls_tier ON calls(tier, seq);
CREATE INDEX IF NOT EXISTS calls_time ON calls(time_ms);
CREATE INDEX IF NOT EXISTS calls_facets ON calls(tool, outcome, decider, session, tier, time_ms);
CREATE VIRTUAL TABLE IF NOT EXISTS calls_text USING fts5(body, tokenize = 'trigram', content = '', contentless_delete = 1);
CREATE TABLE IF NOT EXISTS calls_index_state (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
`;

const DROP = `
DROP TABLE IF EXISTS calls;
DROP TABLE IF EXISTS calls_text;
DROP TABLE IF EXISTS calls_index_state;
`;

/** SQLite's page cache for the call index while it is built or caught up, in KiB (its default, 2 MiB, makes a rebuild of a large log slow). */
const CACHE_KIB = 64 * 1024;

/** Its page cache once open, in KiB: a fold writes a hundred milliseconds' calls, and a gate under load must not hold 64 MiB for it. */
const FOLD_CACHE_KIB = 4 * 1024;

/** Rows per index ANALYZE samples for the planner's statistics. */
const ANALYSIS_ROWS = 2000;

/** How many records a catch-up reads per query. */
const READ_SLICE = 20_000;

/** How many calls a catch-up writes per transaction (at least). */
const BATCH_CALLS = 20_000;

/** A `calls` row as SQLite returns it. */
export interface CallsRow {
  seq: number;
  call_id: string;
  last_seq: number;
  time: string;
  time_ms: number;
  tool: string;
  agent: string | null;
  session: string | null;
  source: string | null;
  tier: string | null;
  args_brief: string;
  decision: string | null;
  decider: string | null;
  decided_detail: string | null;
  rule: string | null;
  outcome: string;
  error_code: string | null;
  waited_ms: number | null;
  ran_ms: number | null;
  duration_ms: number | null;
}

/** The explorer's row from a `calls` row (SQLite's nulls left out). */
export function callRowFrom(row: CallsRow): CallRow {
  const optional = (key: string, value: string | number | null) => (value === null ? {} : { [key]: value });
  return {
    callId: row.call_id,
    seq: row.seq,
    lastSeq: row.last_seq,
    time: row.time,
    tool: row.tool,
    ...optional('agent', row.agent),
    ...optional('session', row.session),
    ...optional('source', row.source),
    ...optional('tier', row.tier),
    argsBrief: row.args_brief,
    ...optional('decision', row.decision),
    ...optional('decider', row.decider),
    ...optional('decidedDetail', row.decided_detail),
    ...optional('rule', row.rule),
    outcome: row.outcome,
    ...optional('errorCode', row.error_code),
    ...optional('waitedMs', row.waited_ms),
    ...optional('ranMs', row.ran_ms),
    ...optional('durationMs', row.duration_ms),
  } as CallRow;
}

function columnValues(row: CallRow): Array<string | number | null> {
  const timeMs = Date.parse(row.time);
  return [
    row.seq, row.callId, row.lastSeq, row.time, Number.isNaN(timeMs) ? 0 : timeMs, row.tool, row.agent ?? null, row.session ?? null,
    row.source ?? null, row.tier ?? null, row.argsBrief, row.decision ?? null, row.decider ?? null, row.decidedDetail ?? null,
    row.rule ?? null, row.outcome, row.errorCode ?? null, row.waitedMs ?? null, row.ranMs ?? null, row.durationMs ?? null,
  ];
}

/** The columns of an audit row a call's summary reads (its hashes are not needed). */
const RECORD_COLUMNS = 'seq, call_id, kind, time, payload';

interface AuditRow {
  seq: number;
  call_id: string;
  kind: string;
  time: string;
  payload: string;
}

/** Kinds whose payload a call's summary never reads (only their time): left unparsed, which makes a rebuild faster. */
const UNREAD_PAYLOADS = new Set<string>(['capability', 'started']);

/** A stored row as the steps it holds (one, for a record of one step). */
function stepsFrom(row: AuditRow): AuditRecord[] {
  const payload = UNREAD_PAYLOADS.has(row.kind) ? null : (JSON.parse(row.payload) as unknown);
  return stepsOf({ seq: row.seq, callId: row.call_id, kind: row.kind as AuditKind, time: row.time, payload, prevHash: '', hash: '' });
}

const CLOSING = new Set<string>(CLOSING_KINDS);

/** What opening the index did: nothing, caught up with the newest records, or rebuilt it whole. */
export interface CatchUp {
  kind: 'current' | 'caught-up' | 'rebuilt';
  records: number;
  ms: number;
}

/**
 * The explorer's index of calls, kept in the audit database beside the log (or, for a read-only
 * store whose database has none, in memory). Folded one group commit at a time as the store commits,
 * and brought up to date from the records past its watermark when it is opened.
 */
export class CallIndex {
  private readonly upsertRow;
  private readonly replaceRow;
  private readonly deleteText;
  private readonly insertText;
  private readonly setState;
  /** Set when folding a record failed: the watermark stays behind it, so the next open catches up. */
  private broken = false;
  /**
   * The search text last written for each call still open (forgotten when it closes): a commit
   * that adds nothing searchable to a call leaves its full-text row alone.
   */
  private readonly openTexts = new Map<string, string>();

  private constructor(
    /** The database holding the `calls` and `calls_text` tables. */
    readonly db: SqliteDatabase,
    /** The database holding the audit table (the same one, except for an in-memory index). */
    private readonly auditDb: SqliteDatabase,
    /** False when the index cannot be written (a read-only store's database): it is queried as it is. */
    readonly writable: boolean,
    /** True for an in-memory index: closing the index closes its database. */
    private readonly owned = false,
  ) {
    if (writable) {
      const values = `(${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`;
      const updates = COLUMNS.filter((column) => column !== 'seq').map((column) => `${column} = excluded.${column}`);
      // A call's row is keyed by its first record's seq: written again when the call goes on. An
      // upsert on that key costs a third of what OR REPLACE does with the facet indexes.
      this.upsertRow = db.prepare(`INSERT INTO calls ${values} ON CONFLICT(seq) DO UPDATE SET ${updates.join(', ')}`);
      // The rare row whose call id another row holds (a log whose call ids repeat) replaces that row, as before.
      this.replaceRow = db.prepare(`INSERT OR REPLACE INTO calls ${values}`);
      this.deleteText = db.prepare('DELETE FROM calls_text WHERE rowid = ?');
      this.insertText = db.prepare('INSERT INTO calls_text (rowid, body) VALUES (?, ?)');
      this.setState = db.prepare('INSERT OR REPLACE INTO calls_index_state (key, value) VALUES (?, ?)');
    }
  }

  /**
   * Opens the index database of a log for writing (`indexDb`, its own file beside the audit database
   * `auditDb`, which is only read): created if missing, rebuilt if of another version, of another log
   * or damaged, and caught up with records written past its watermark. Call inside no transaction.
   */
  static open(indexDb: SqliteDatabase, auditDb: SqliteDatabase): { index: CallIndex; catchUp: CatchUp } {
    const started = performance.now();
    // The call index's indexes take random keys (call ids): a larger page cache keeps writing them fast.
    indexDb.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -${CACHE_KIB}`);
    const log = logIdOf(auditDb);
    let rebuilt = false;
    if (!CallIndex.usable(indexDb, auditDb, log)) {
      indexDb.exec(DROP);
      rebuilt = true;
    }
    indexDb.exec(SCHEMA);
    const index = new CallIndex(indexDb, auditDb, true);
    if (rebuilt) {
      index.setState!.run('version', CALL_INDEX_VERSION);
      if (log !== undefined) index.setState!.run('log', log);
    }
    // Nothing indexed yet (a new log, or one written without the index): nothing to replace.
    const records = index.catchUp(rebuilt || index.watermark() === 0);
    // Statistics for the planner (how many calls a facet value has), on a sample of the call index
    // alone, after it took in records: without them it may sort a whole facet for one page.
    if (records > 0) indexDb.exec(`PRAGMA analysis_limit = ${ANALYSIS_ROWS}; ANALYZE calls; PRAGMA analysis_limit = 0;`);
    indexDb.exec(`PRAGMA cache_size = -${FOLD_CACHE_KIB}; PRAGMA shrink_memory`);
    const kind = rebuilt ? 'rebuilt' : records > 0 ? 'caught-up' : 'current';
    return { index, catchUp: { kind, records, ms: performance.now() - started } };
  }

  /**
   * The index of a log opened for reading: its index database (`indexDb`, when there is one and it
   * is this log's), else the one older gates kept inside the audit database, else one built in
   * memory from the records, as a CLI command needs it once. An index read from a file may be behind
   * the log (`behind()` says by how much, and the explorer says so).
   */
  static openReadOnly(auditDb: SqliteDatabase, indexDb?: SqliteDatabase): CallIndex {
    const log = logIdOf(auditDb);
    if (indexDb && CallIndex.usable(indexDb, auditDb, log)) return new CallIndex(indexDb, auditDb, false);
    if (CallIndex.usable(auditDb, auditDb, undefined)) return new CallIndex(auditDb, auditDb, false);
    const memory = openDatabase(':memory:');
    memory.exec(SCHEMA);
    // A database without the audit table (empty, or not a log) has no calls.
    if (!hasAuditTable(auditDb)) {
      memory.exec('CREATE TABLE audit (seq INTEGER PRIMARY KEY, call_id TEXT, kind TEXT, time TEXT, payload TEXT, prev_hash TEXT, hash TEXT)');
      return new CallIndex(memory, memory, true, true);
    }
    const index = new CallIndex(memory, auditDb, true, true);
    index.catchUp(true);
    return index;
  }

  /** Whether `db` holds an index of this version, whole, of the log in `auditDb` (named `log`, when the index says whose it is). */
  private static usable(db: SqliteDatabase, auditDb: SqliteDatabase, log: string | undefined): boolean {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('calls', 'calls_text', 'calls_index_state')").all();
    if (tables.length !== 3) return false;
    const state = (key: string) => (db.prepare('SELECT value FROM calls_index_state WHERE key = ?').get(key) as { value: number | string } | undefined)?.value;
    if (state('version') !== CALL_INDEX_VERSION) return false;
    // An index file that names another log (the audit database was replaced) is rebuilt.
    if (log !== undefined && db !== auditDb && String(state('log')) !== log) return false;
    // A watermark past the log's end belongs to another log: rebuilt.
    const logEnd = hasAuditTable(auditDb) ? ((auditDb.prepare('SELECT MAX(seq) AS seq FROM audit').get() as { seq: number | null }).seq ?? 0) : 0;
    return CallIndex.watermarkOf(db) <= logEnd;
  }

  private static watermarkOf(db: SqliteDatabase): number {
    const row = db.prepare("SELECT value FROM calls_index_state WHERE key = 'watermark'").get() as { value: number } | undefined;
    return row?.value ?? 0;
  }

  /** The seq of the newest record the index holds. */
  watermark(): number {
    return CallIndex.watermarkOf(this.db);
  }

  /** How many records of the log the index does not hold yet (a read-only view of a log a gate is writing). */
  behind(): number {
    const end = (this.auditDb.prepare('SELECT MAX(seq) AS seq FROM audit').get() as { seq: number | null } | undefined)?.seq ?? 0;
    return Math.max(0, end - this.watermark());
  }

  /**
   * Writes a call's row, and its text unless that is the text written last for it (most records of
   * a call under way, e.g. `started`, add none). `fresh`: the call has no text row yet.
   */
  private write(summary: CallSummary, fresh: boolean): void {
    const values = columnValues(summary.row);
    try {
      this.upsertRow!.run(...values);
    } catch (error) {
      if (!isUniqueConflict(error)) throw error;
      this.replaceRow!.run(...values);
    }
    const callId = summary.row.callId;
    const unchanged = this.openTexts.get(callId) === summary.text;
    if (summary.row.outcome === 'open') this.openTexts.set(callId, summary.text);
    else this.openTexts.delete(callId);
    if (unchanged) return;
    if (!fresh) this.deleteText!.run(summary.row.seq);
    this.insertText!.run(summary.row.seq, summary.text);
  }

  /**
   * Folds the records committed past the watermark into their calls' rows and text, in transactions
   * of its own: the index thread's work after each group commit. Returns how many records it read.
   * A fold that fails leaves the watermark before its records, and stops folding: the next open
   * catches up.
   */
  foldCommitted(): number {
    if (!this.writable || this.broken) return 0;
    try {
      return this.catchUp(false);
    } catch (error) {
      // The texts remembered may belong to rows just rolled back.
      this.openTexts.clear();
      this.broken = true;
      throw error;
    }
  }

  /**
   * Reads the records past the watermark in order and writes their calls, BATCH_CALLS calls per
   * transaction. A call begun before the watermark is read whole. `fresh`: the tables are empty
   * (a rebuild), so nothing is replaced. Returns how many records were read.
   */
  private catchUp(fresh: boolean): number {
    const from = this.watermark();
    const open = new Map<string, AuditRecord[]>();
    const done: CallSummary[] = [];
    const earlier = this.auditDb.prepare(`SELECT ${RECORD_COLUMNS} FROM audit WHERE call_id = ? AND seq <= ? ORDER BY seq`);
    let records = 0;
    let lastSeq = from;
    /** Calls with a row from before (records up to the watermark, or written open meanwhile): their text is replaced, not added. */
    const indexed = new Set<string>();
    const flush = () => {
      this.db.exec('BEGIN');
      try {
        for (const summary of done) this.write(summary, !indexed.has(summary.row.callId));
        // Calls still open are written as they are now (and again once they end), so the watermark holds.
        for (const trail of open.values()) {
          const summary = summarizeCall(trail);
          if (!summary) continue;
          this.write(summary, !indexed.has(summary.row.callId));
          indexed.add(summary.row.callId);
        }
        this.setState!.run('watermark', lastSeq);
        this.db.exec('COMMIT');
      } catch (error) {
        this.db.exec('ROLLBACK');
        throw error;
      }
      done.length = 0;
    };
    // Read a slice at a time, no statement open across the commits, so the WAL can be checkpointed as it goes.
    const slice = this.auditDb.prepare(`SELECT ${RECORD_COLUMNS} FROM audit WHERE seq > ? ORDER BY seq LIMIT ${READ_SLICE}`);
    for (;;) {
      const rows = slice.all(lastSeq) as unknown as AuditRow[];
      for (const row of rows) {
        records++;
        lastSeq = row.seq;
        let trail = open.get(row.call_id);
        if (!trail) {
          trail = from > 0 && !fresh ? (earlier.all(row.call_id, from) as unknown as AuditRow[]).flatMap(stepsFrom) : [];
          if (trail.length > 0) indexed.add(row.call_id);
          open.set(row.call_id, trail);
        }
        const steps = stepsFrom(row);
        trail.push(...steps);
        if (CLOSING.has(steps.at(-1)!.kind)) {
          open.delete(row.call_id);
          const summary = summarizeCall(trail);
          if (summary) done.push(summary);
        }
      }
      if (done.length >= BATCH_CALLS) flush();
      if (rows.length < READ_SLICE) break;
    }
    if (records > 0) flush();
    return records;
  }

  /** One call's row, by id. */
  row(callId: string): CallRow | undefined {
    const row = this.db.prepare('SELECT * FROM calls WHERE call_id = ?').get(callId) as CallsRow | undefined;
    return row ? callRowFrom(row) : undefined;
  }

  /** Closes an in-memory index (one in the audit database closes with it). Idempotent. */
  close(): void {
    if (this.owned && this.db.isOpen) this.db.close();
  }
}

/** Whether SQLite refused a statement for a UNIQUE constraint (SQLITE_CONSTRAINT_UNIQUE). */
function isUniqueConflict(error: unknown): boolean {
  return (error as { errcode?: unknown } | null)?.errcode === SQLITE_CONSTRAINT_UNIQUE;
}

const SQLITE_CONSTRAINT_UNIQUE = 2067;

/** Whether a database holds the audit table (an empty or foreign file does not). */
function hasAuditTable(db: SqliteDatabase): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit'").get() !== undefined;
}

/** The log's own id (audit_meta), which its index file records, or undefined for a log without one. */
export function logIdOf(auditDb: SqliteDatabase): string | undefined {
  try {
    return (auditDb.prepare("SELECT value FROM audit_meta WHERE key = 'log-id'").get() as { value: string } | undefined)?.value;
  } catch {
    // no audit_meta table (a log from before it, or not a log)
    return undefined;
  }
}
