import type { ExplorerFilter, ExplorerStats } from '../../shared/explorer';
import type { AuditStore } from './auditStore';
import { compileFilter, filteredCalls } from './explorerQuery';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Bucket sizes the over-time chart picks from: the smallest that gives at most MAX_BUCKETS bars. */
const BUCKET_SIZES = [MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 7 * DAY, 30 * DAY];
/** The most bars the over-time chart gets for a range (a longer range takes a larger bucket). */
export const MAX_BUCKETS = 60;

/** Upper bounds of the wait-time histogram, in milliseconds; the last bucket holds every longer wait. */
export const WAIT_BOUNDS_MS = [1_000, 5_000, 15_000, 30_000, 60_000, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR];

/** How many tools and rules the charts list at most. */
export const TOP = 10;
/** How many sessions the charts list at most (the newest). */
export const SESSIONS = 50;

/** The bucket size for a time range: the smallest of BUCKET_SIZES that covers it in MAX_BUCKETS bars or fewer. */
export function bucketSizeFor(spanMs: number): number {
  return BUCKET_SIZES.find((size) => spanMs / size <= MAX_BUCKETS) ?? BUCKET_SIZES[BUCKET_SIZES.length - 1]!;
}

/**
 * The shape of the calls matching a filter: calls per time bucket by outcome, approval wait times,
 * top tools, refusals by the rule (or the person) that refused them, and the agent sessions,
 * newest first.
 */
export function explorerStats(store: AuditStore, filter: ExplorerFilter): ExplorerStats {
  const started = performance.now();
  const compiled = compileFilter(filter);
  const { db } = store.callIndex();
  const { from, where, params } = filteredCalls(compiled);
  const query = <T>(select: string, tail = '') => db.prepare(`SELECT ${select} FROM ${from} WHERE ${where}${tail}`).all(...params) as unknown as T[];

  const span = query<{ first: number | null; last: number | null }>('MIN(c.time_ms) AS first, MAX(c.time_ms) AS last')[0];
  const rangeFrom = filter.from !== undefined ? Date.parse(filter.from) : (span?.first ?? 0);
  const rangeTo = filter.to !== undefined ? Date.parse(filter.to) : (span?.last ?? 0) + 1;
  const bucketMs = bucketSizeFor(Math.max(1, rangeTo - rangeFrom));
  const buckets = new Map<number, Record<string, number>>();
  if (span?.first !== null && span?.first !== undefined) {
    for (let start = Math.floor(rangeFrom / bucketMs) * bucketMs; start < rangeTo; start += bucketMs) buckets.set(start, {});
    // Written into the SQL (one of BUCKET_SIZES): a bound number is a REAL to SQLite, and the division would not round down.
    for (const row of query<{ bucket: number; outcome: string; n: number }>(`(c.time_ms / ${bucketMs}) * ${bucketMs} AS bucket, c.outcome AS outcome, COUNT(*) AS n`, ' GROUP BY 1, 2')) {
      const counts = buckets.get(row.bucket) ?? {};
      counts[row.outcome] = row.n;
      buckets.set(row.bucket, counts);
    }
  }

  const cases = WAIT_BOUNDS_MS.map((bound, i) => `WHEN c.waited_ms <= ${bound} THEN ${i}`).join(' ');
  const waitRows = query<{ bucket: number; n: number; longest: number }>(
    `CASE ${cases} ELSE ${WAIT_BOUNDS_MS.length} END AS bucket, COUNT(*) AS n, MAX(c.waited_ms) AS longest`,
    ' AND c.waited_ms IS NOT NULL GROUP BY 1',
  );
  const longest = Math.max(0, ...waitRows.map((row) => row.longest));
  const waits = [...WAIT_BOUNDS_MS, Math.max(longest, WAIT_BOUNDS_MS[WAIT_BOUNDS_MS.length - 1]! + 1)].map((upToMs, i) => ({
    upToMs,
    count: waitRows.find((row) => row.bucket === i)?.n ?? 0,
  }));

  const topTools = query<{ tool: string; count: number }>('c.tool AS tool, COUNT(*) AS count', ` GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${TOP}`);
  const denialsByRule = query<{ rule: string; count: number }>(
    "CASE WHEN c.decision = 'deny' THEN COALESCE(c.rule, 'policy') WHEN c.decider = 'person' THEN 'a person denied it' " +
      "WHEN c.decider = 'timeout' THEN 'no answer in time' WHEN c.decider = 'withdrawn' THEN 'withdrawn by the agent' ELSE 'refused before the policy' END AS rule, COUNT(*) AS count",
    ` AND c.outcome = 'rejected' AND c.error_code = 'EDENIED' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${TOP}`,
  );
  const sessions = query<{ session: string; agent: string | null; first: number; last: number; calls: number; failed: number; denied: number }>(
    "c.session AS session, MAX(c.agent) AS agent, MIN(c.time_ms) AS first, MAX(c.time_ms) AS last, COUNT(*) AS calls, " +
      // COUNT of a CASE, not SUM of a comparison: a comparison with a NULL error code is NULL, and so is the SUM of only NULLs.
      "COUNT(CASE WHEN c.outcome IN ('failed', 'interrupted') THEN 1 END) AS failed, COUNT(CASE WHEN c.error_code = 'EDENIED' THEN 1 END) AS denied",
    ` AND c.session IS NOT NULL GROUP BY 1 ORDER BY 4 DESC LIMIT ${SESSIONS}`,
  );

  return {
    overTime: { bucketMs, buckets: [...buckets].sort((a, b) => a[0] - b[0]).map(([start, counts]) => ({ start: new Date(start).toISOString(), counts })) },
    waits,
    topTools,
    denialsByRule,
    sessions: sessions.map((row) => ({
      session: row.session,
      ...(row.agent !== null ? { agent: row.agent } : {}),
      first: new Date(row.first).toISOString(),
      last: new Date(row.last).toISOString(),
      calls: row.calls,
      failed: row.failed,
      denied: row.denied,
    })),
    tookMs: Math.round((performance.now() - started) * 1000) / 1000,
  };
}
