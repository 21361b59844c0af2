import {
  ExplorerPageRequestSchema,
  FACETS,
  MIN_SEARCH_CHARS,
  type CallRow,
  type ExplorerFilter,
  type ExplorerPage,
  type ExplorerPageRequest,
  type Facet,
  type FacetCounts,
} from '../../shared/explorer';
import { GateError } from '../../shared/errors';
import type { AuditStore } from './auditStore';
import { callRowFrom, type CallIndex, type CallsRow } from './callIndex';

/** The most values one facet lists (the most frequent first; values the filter holds always show). */
export const FACET_VALUES = 100;

/** How many rows iterateCalls reads per query. */
const ITERATE_PAGE = 500;

/** The `calls` column of each facet. */
const FACET_COLUMNS: Record<Facet, string> = { tool: 'tool', outcome: 'outcome', decider: 'decider', session: 'session', tier: 'tier' };

/** Text a person may have typed as a regular expression: `.*`, `.+`, a leading `^`, a trailing `$`, `|`, `\d`-like classes, `[…]`, `(?`. */
const REGEX_LOOKING = /\.\*|\.\+|^\^|\$$|\||\\[dDwWsSbB]|\[[^\]]*\]|\(\?/;

/** A filter turned into SQL over the `calls` table (aliased `c`), with the FTS5 match when it searches text. */
export interface CompiledFilter {
  /** Conditions on the call's time, id and text (every facet's counts are taken under them). */
  base: string[];
  baseParams: Array<string | number>;
  /** One condition per facet that has values. */
  facets: Map<Facet, { sql: string; params: string[] }>;
  /** The FTS5 phrase, quoted, when the filter searches text. */
  match: string | undefined;
  notice: string | undefined;
}

function timeBound(name: 'from' | 'to', value: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new GateError(
      'EVALIDATION',
      `the filter's \`${name}\` is not a time: ${JSON.stringify(value)}. Give an ISO 8601 time such as 2026-11-23T14:00:00Z (or a date, 2026-11-23)`,
    );
  }
  return ms;
}

/**
 * The search text as one FTS5 phrase: in double quotes, each `"` doubled, so nothing the person
 * typed (`*`, `NEAR(`, `AND`, `:`, `^`) is read as query syntax; the trigram tokenizer then matches
 * it as a case-insensitive substring.
 */
export function ftsPhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/** Checks and compiles a filter; bad input is refused with what was wrong and how to fix it. */
export function compileFilter(filter: ExplorerFilter): CompiledFilter {
  const base: string[] = [];
  const baseParams: Array<string | number> = [];
  let notice: string | undefined;
  let match: string | undefined;
  if (filter.from !== undefined) {
    base.push('c.time_ms >= ?');
    baseParams.push(timeBound('from', filter.from));
  }
  if (filter.to !== undefined) {
    base.push('c.time_ms < ?');
    baseParams.push(timeBound('to', filter.to));
  }
  if (filter.from !== undefined && filter.to !== undefined && timeBound('from', filter.from) >= timeBound('to', filter.to)) {
    throw new GateError('EVALIDATION', `the filter's \`from\` (${filter.from}) is not before its \`to\` (${filter.to}): give a range that starts before it ends`);
  }
  if (filter.callId !== undefined) {
    base.push('c.call_id = ?');
    baseParams.push(filter.callId);
  }
  if (filter.text !== undefined && filter.text.length > 0) {
    const chars = [...filter.text].length;
    if (chars < MIN_SEARCH_CHARS) {
      throw new GateError(
        'EVALIDATION',
        `the search ${JSON.stringify(filter.text)} is ${chars} character${chars === 1 ? '' : 's'} long: type at least ${MIN_SEARCH_CHARS}. ` +
          `The search index is made of ${MIN_SEARCH_CHARS}-character pieces, so shorter text cannot be looked up in it`,
      );
    }
    match = ftsPhrase(filter.text);
    if (REGEX_LOOKING.test(filter.text)) {
      notice = `searched for ${JSON.stringify(filter.text)} as typed: the search matches text literally (case aside), not as a regular expression`;
    }
  }
  const facets = new Map<Facet, { sql: string; params: string[] }>();
  for (const facet of FACETS) {
    const values = filter[facet];
    if (!values || values.length === 0) continue;
    facets.set(facet, { sql: `c.${FACET_COLUMNS[facet]} IN (${values.map(() => '?').join(', ')})`, params: [...values] });
  }
  return { base, baseParams, facets, match, notice };
}

/** The FROM clause and the paging key: the FTS5 matches joined to their calls, or the calls alone. */
function source(compiled: CompiledFilter): { from: string; key: string } {
  return compiled.match !== undefined ? { from: 'calls_text JOIN calls c ON c.seq = calls_text.rowid', key: 'calls_text.rowid' } : { from: 'calls c', key: 'c.seq' };
}

/** The WHERE clause (and params) of every condition, optionally leaving one facet out. */
function where(compiled: CompiledFilter, options: { except?: Facet; facets?: boolean } = {}): { sql: string; params: Array<string | number> } {
  const parts: string[] = [];
  const params: Array<string | number> = [];
  if (compiled.match !== undefined) {
    parts.push('calls_text MATCH ?');
    params.push(compiled.match);
  }
  parts.push(...compiled.base);
  params.push(...compiled.baseParams);
  if (options.facets !== false) {
    for (const [facet, condition] of compiled.facets) {
      if (facet === options.except) continue;
      parts.push(condition.sql);
      params.push(...condition.params);
    }
  }
  return { sql: parts.length > 0 ? parts.join(' AND ') : '1', params };
}

/** The FROM and WHERE of the calls a filter matches (the calls aliased `c`), for other queries over them (the charts). */
export function filteredCalls(compiled: CompiledFilter): { from: string; where: string; params: Array<string | number> } {
  const condition = where(compiled);
  return { from: source(compiled).from, where: condition.sql, params: condition.params };
}

/** One keyset page of rows below `beforeSeq`, newest first; one more row than asked tells whether there are older ones. */
function pageRows(index: CallIndex, compiled: CompiledFilter, limit: number, beforeSeq: number | undefined): CallsRow[] {
  const { from, key } = source(compiled);
  const condition = where(compiled);
  const sql = `SELECT c.* FROM ${from} WHERE ${condition.sql}${beforeSeq !== undefined ? ` AND ${key} < ?` : ''} ORDER BY ${key} DESC LIMIT ?`;
  const params = [...condition.params, ...(beforeSeq !== undefined ? [beforeSeq] : []), limit];
  return index.db.prepare(sql).all(...params) as unknown as CallsRow[];
}

/** Calls per combination of facet values under the time, id and text conditions: every count the page shows is summed from these. */
type Combination = Record<Facet, string | null> & { n: number };

/** The last combinations counted, by index and filter: a facet clicked changes no combination, so its counts come at once. */
const combinationCache = new WeakMap<CallIndex, { key: string; combinations: Combination[] }>();

function combinations(index: CallIndex, compiled: CompiledFilter): Combination[] {
  const key = JSON.stringify([compiled.base, compiled.baseParams, compiled.match, index.watermark()]);
  const cached = combinationCache.get(index);
  if (cached?.key === key) return cached.combinations;
  const { from } = source(compiled);
  const condition = where(compiled, { facets: false });
  const columns = FACETS.map((facet) => `c.${FACET_COLUMNS[facet]} AS ${facet}`).join(', ');
  const rows = index.db
    .prepare(`SELECT ${columns}, COUNT(*) AS n FROM ${from} WHERE ${condition.sql} GROUP BY ${FACETS.map((_, i) => i + 1).join(', ')}`)
    .all(...condition.params) as unknown as Combination[];
  combinationCache.set(index, { key, combinations: rows });
  return rows;
}

function matches(combination: Combination, compiled: CompiledFilter, except?: Facet): boolean {
  for (const facet of compiled.facets.keys()) {
    if (facet === except) continue;
    const value = combination[facet];
    if (value === null || !(compiled.facets.get(facet)!.params as readonly string[]).includes(value)) return false;
  }
  return true;
}

/** The total, and each facet's counts under the other facets' filters (as trace explorers count them). */
function countFacets(all: Combination[], compiled: CompiledFilter, filter: ExplorerFilter): { total: number; facets: FacetCounts } {
  let total = 0;
  for (const combination of all) if (matches(combination, compiled)) total += combination.n;
  const facets: FacetCounts = {};
  for (const facet of FACETS) {
    const counts = new Map<string, number>();
    for (const combination of all) {
      const value = combination[facet];
      if (value === null || !matches(combination, compiled, facet)) continue;
      counts.set(value, (counts.get(value) ?? 0) + combination.n);
    }
    for (const chosen of filter[facet] ?? []) if (!counts.has(chosen)) counts.set(chosen, 0);
    const chosen = new Set<string>(filter[facet] ?? []);
    const sorted = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    facets[facet] = sorted.filter(([value], rank) => rank < FACET_VALUES || chosen.has(value)).map(([value, count]) => ({ value, count }));
  }
  return { total, facets };
}

function countTotal(index: CallIndex, compiled: CompiledFilter): number {
  const { from } = source(compiled);
  const condition = where(compiled);
  return (index.db.prepare(`SELECT COUNT(*) AS n FROM ${from} WHERE ${condition.sql}`).get(...condition.params) as { n: number }).n;
}

/** Said when a read-only view's index has not caught up with the log a gate is writing. */
function lagNotice(index: CallIndex): string | undefined {
  if (index.writable) return undefined;
  const behind = index.behind();
  return behind > 0
    ? `the call index is ${behind} record${behind === 1 ? '' : 's'} behind the log (a gate is writing it, or has not opened it since): the newest calls are not shown yet`
    : undefined;
}

/**
 * One page of the explorer: the calls matching the filter, newest first, `limit` of them below the
 * cursor; on the first page the total, and the facet counts when asked. Values within a facet are
 * OR-ed, facets AND-ed; each facet is counted under the other facets' filters.
 */
export function explorePage(store: AuditStore, request: ExplorerPageRequest): ExplorerPage {
  const started = performance.now();
  const parsed = ExplorerPageRequestSchema.safeParse(request);
  if (!parsed.success) {
    throw new GateError('EVALIDATION', `the explorer request is not valid: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'request'}: ${issue.message}`).join('; ')}`);
  }
  const { filter, limit, cursor, facets: withFacets } = parsed.data;
  const compiled = compileFilter(filter);
  const index = store.callIndex();
  const rows = pageRows(index, compiled, limit + 1, cursor?.beforeSeq);
  const shown = rows.slice(0, limit).map(callRowFrom);
  const page: ExplorerPage = { rows: shown, tookMs: 0 };
  if (rows.length > limit) page.next = { beforeSeq: shown[shown.length - 1]!.seq };
  if (withFacets) {
    const counted = countFacets(combinations(index, compiled), compiled, filter);
    page.total = counted.total;
    page.facets = counted.facets;
  } else if (!cursor) {
    page.total = rows.length <= limit ? shown.length : countTotal(index, compiled);
  }
  const notices = [compiled.notice, lagNotice(index)].filter((notice): notice is string => notice !== undefined);
  if (notices.length > 0) page.notice = notices.join('; ');
  page.tookMs = Math.round((performance.now() - started) * 1000) / 1000;
  return page;
}

/**
 * Every call matching the filter, newest first, read a page at a time by keyset (so calls appended
 * meanwhile neither repeat nor shift what is read). For export and the CLI.
 */
export function iterateCalls(store: AuditStore, filter: ExplorerFilter): Iterable<CallRow> {
  // Checked now, so bad input is refused when asked, not at the first row read.
  const compiled = compileFilter(filter);
  return walkCalls(store.callIndex(), compiled);
}

function* walkCalls(index: CallIndex, compiled: CompiledFilter): Generator<CallRow> {
  let beforeSeq: number | undefined;
  for (;;) {
    const rows = pageRows(index, compiled, ITERATE_PAGE, beforeSeq);
    for (const row of rows) yield callRowFrom(row);
    if (rows.length < ITERATE_PAGE) return;
    beforeSeq = rows[rows.length - 1]!.seq;
  }
}
