import { CLOSING_KINDS, STEPS_KINDS, type AuditRecord, type OpenCall } from '../../shared/audit';
import { stepsOf } from '../../shared/auditSteps';
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
  const open = (
    closedThrough <= 0 ? db.prepare(OPEN_CALLS_SQL).all(...CLOSING_KINDS) : db.prepare(OPEN_CALLS_SINCE_SQL).all(closedThrough, ...CLOSING_KINDS)
  ) as unknown as OpenCall[];
  return open.map((call) => atLastStep(db, call));
}

const HOLDS_STEPS = new Set<string>(STEPS_KINDS);

/** An open call whose newest record holds several steps, named by the last of them (the step it had reached) and its time. */
function atLastStep(db: SqliteDatabase, call: OpenCall): OpenCall {
  if (!HOLDS_STEPS.has(call.lastKind)) return call;
  const row = db.prepare('SELECT payload FROM audit WHERE seq = ?').get(call.lastSeq) as { payload: string } | undefined;
  if (!row) return call;
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    return call;
  }
  const record: AuditRecord = { seq: call.lastSeq, callId: call.callId, kind: call.lastKind, time: call.lastTime, payload, prevHash: '', hash: '' };
  const last = stepsOf(record).at(-1)!;
  return { ...call, lastKind: last.kind, lastTime: last.time };
}
