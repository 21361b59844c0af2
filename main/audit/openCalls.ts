import { CLOSING_KINDS, type OpenCall } from '../../shared/audit';
import type { SqliteDatabase } from './sqlite';


/**
 * Every call id with records but no closing one, oldest first, in one grouped query: SQLite's
 * bare columns next to MAX(seq) come from that newest row, so no call's records are read in JS.
 */
const OPEN_CALLS_SQL = `
SELECT call_id AS callId, MAX(seq) AS lastSeq, kind AS lastKind, time AS lastTime
FROM audit
GROUP BY call_id
HAVING SUM(kind IN (${CLOSING_KINDS.map(() => '?').join(', ')})) = 0
ORDER BY lastSeq`;

/** The calls of the log that have no closing record. */
export function findOpenCalls(db: SqliteDatabase): OpenCall[] {
  return db.prepare(OPEN_CALLS_SQL).all(...CLOSING_KINDS) as unknown as OpenCall[];
}
