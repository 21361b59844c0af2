import type { SqliteDatabase } from './sqlite';

/**
 * A seq up to which every call of the log was closed when a gate noted it (at its start, once the
 * calls left open were ended), kept in the audit database beside the log and outside its chain: it
 * only saves the next start from grouping the whole log to find open calls. A log cut below it is
 * looked at whole again (the caller checks it against the log's end).
 */
const STATE_TABLE = 'CREATE TABLE IF NOT EXISTS audit_state (key TEXT PRIMARY KEY, value INTEGER NOT NULL)';

/** The seq noted last, or 0 (none noted, or a database without the table). Older gates kept it in the call index's state, which is read then. */
export function closedThroughOf(db: SqliteDatabase): number {
  for (const query of [
    "SELECT value FROM audit_state WHERE key = 'closed_through'",
    "SELECT value FROM calls_index_state WHERE key = 'closed_through'",
  ]) {
    try {
      const row = db.prepare(query).get() as { value: number } | undefined;
      if (row) return row.value;
    } catch {
      // no such table in this database
    }
  }
  return 0;
}

/** Notes that every call with records up to `seq` is closed; a failure (a full disk) costs the next start a longer look, nothing else. */
export function noteClosedThrough(db: SqliteDatabase, seq: number): void {
  try {
    db.exec(STATE_TABLE);
    db.prepare("INSERT OR REPLACE INTO audit_state (key, value) VALUES ('closed_through', ?)").run(seq);
  } catch {
    // not noted
  }
}
