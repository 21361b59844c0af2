import { CLOSING_KINDS, type OpenCall } from '../../shared/audit';
import type { SqliteDatabase } from './sqlite';

/**
 * Every call id with records but no closing one, oldest first, in one grouped query: SQLite's
 * bare columns next to MAX(seq) come from that newest row, so no call's records are read in JS.
 * The whole log is grouped along the call_id index.
 */
const OPEN_CALLS_SQL = `
SELECT call_id AS callId, MAX(seq) AS lastSeq, kind AS lastKind, time AS lastTime
FROM audit
GROUP BY call_id
HAVING SUM(kind IN (${CLOSING_KINDS.map(() => '?').join(', ')})) = 0
ORDER BY lastSeq`;

/** The same over the records past a seq, read in seq order (NOT INDEXED: the call_id index would read the whole log). */
const OPEN_CALLS_SINCE_SQL = `
SELECT call_id AS callId, MAX(seq) AS lastSeq, kind AS lastKind, time AS lastTime
FROM audit NOT INDEXED
WHERE seq > ?
GROUP BY call_id
HAVING SUM(kind IN (${CLOSING_KINDS.map(() => '?').join(', ')})) = 0
ORDER BY lastSeq`;

/**
 * The calls of the log that have no closing record. `closedThrough`: a seq up to which every call
 * was known to be closed when it was noted; as no call gets a record after its end, only the records
 * after it are grouped. 0 groups the whole log.
 */
export function findOpenCalls(db: SqliteDatabase, closedThrough = 0): OpenCall[] {
  if (closedThrough <= 0) return db.prepare(OPEN_CALLS_SQL).all(...CLOSING_KINDS) as unknown as OpenCall[];
  return db.prepare(OPEN_CALLS_SINCE_SQL).all(closedThrough, ...CLOSING_KINDS) as unknown as OpenCall[];
}
