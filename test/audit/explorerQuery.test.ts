/**
 * The audit explorer's queries over a generated log of 3,000 realistic calls: keyset pages that
 * give every call once while the gate keeps writing, facet counts each taken under the other
 * facets' filters, literal case-insensitive substring search, bad input refused or noted clearly,
 * and the call index rebuilt or caught up when it is missing or behind, read-only as well.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, rmSync } from 'node:fs';
import { AuditStore } from '../../main/audit/auditStore';
import { indexPathFor } from '../../main/audit/indexThread';
import { explorePage, iterateCalls } from '../../main/audit/explorerQuery';
import type { AuditRecord } from '../../shared/audit';
import type { CallRow, ExplorerFilter, Facet } from '../../shared/explorer';
import { GateError } from '../../shared/errors';
import { removeTempFolder } from '../fixtures/tempFolder';
import { countSqliteWork } from '../fixtures/workCounters';
import { appendCall, onDatabase, syntheticHome } from './explorerFixture';

const CALLS = 3000;
let root: string;
let paths: { path: string; headPath: string };
let store: AuditStore;
/** Every call as the index gives it, newest first, read before any test appends. */
let all: CallRow[];

beforeAll(async () => {
  ({ root, paths } = await syntheticHome(CALLS));
  store = new AuditStore(paths);
  all = [...iterateCalls(store, {})];
});

afterAll(() => {
  store?.close();
  removeTempFolder(root);
});

/** The calls a filter keeps, by the filter's meaning, in plain JS over all rows. */
function kept(rows: CallRow[], filter: ExplorerFilter, except?: Facet): CallRow[] {
  const facets: Facet[] = ['tool', 'outcome', 'decider', 'session', 'tier'];
  return rows.filter((row) => facets.every((facet) => facet === except || !filter[facet] || (filter[facet] as string[]).includes(row[facet] as string)));
}

/** What a person searches in a call: its records' payloads (not its hashes), lower-cased. */
function searchable(records: AuditRecord[]): string {
  const searched = ['invoked', 'policy', 'approval-requested', 'approval-decided', 'completed', 'failed', 'rejected', 'interrupted'];
  return records
    .filter((record) => searched.includes(record.kind))
    .map((record) => JSON.stringify(record.payload))
    .join('\n')
    .toLowerCase();
}

function gateError(run: () => unknown): GateError {
  try {
    run();
  } catch (error) {
    if (error instanceof GateError) return error;
    throw error;
  }
  throw new Error('expected a GateError');
}

describe('the call index over a generated log', () => {
  it('holds every call once, newest first, and the log verifies with its head anchor', () => {
    expect(all).toHaveLength(CALLS);
    expect(new Set(all.map((row) => row.callId)).size).toBe(CALLS);
    expect(all.map((row) => row.seq)).toEqual([...all.map((row) => row.seq)].sort((a, b) => b - a));
    expect(store.verify()).toMatchObject({ ok: true });
    const outcomes = new Set(all.map((row) => row.outcome));
    expect([...outcomes].sort()).toEqual(['completed', 'failed', 'rejected']);
    expect(new Set(all.map((row) => row.decider))).toEqual(new Set(['default', 'rule', 'person', 'timeout']));
  });

  it('pages by keyset: every call exactly once across pages, while new calls are appended between pages', () => {
    const seen: string[] = [];
    let cursor: { beforeSeq: number } | undefined;
    let appended = 0;
    do {
      const page = explorePage(store, { limit: 250, ...(cursor ? { cursor } : {}) });
      seen.push(...page.rows.map((row) => row.callId));
      cursor = page.next;
      appendCall(store, `appended-${appended++}`, 'echo', { text: 'written while paging' }, 'written while paging');
    } while (cursor);
    expect(seen).toEqual(all.map((row) => row.callId));
    // The calls written meanwhile are on the newest page now, above the ones paged.
    const newest = explorePage(store, { limit: appended, filter: { tool: ['echo'] } });
    expect(newest.rows.map((row) => row.callId)).toEqual(Array.from({ length: appended }, (_, i) => `appended-${appended - 1 - i}`));
  });

  it('counts each facet under the other facets’ filters, and the total under all of them', () => {
    const filter: ExplorerFilter = { tool: ['shell_exec', 'write_file'], outcome: ['rejected', 'failed'] };
    const page = explorePage(store, { filter, facets: true, limit: 20 });
    const rows = all;
    expect(page.total).toBe(kept(rows, filter).length);
    expect(page.rows).toEqual(kept(rows, filter).slice(0, 20));
    for (const facet of ['tool', 'outcome', 'decider', 'tier'] as const) {
      const expected = new Map<string, number>();
      for (const row of kept(rows, filter, facet)) if (row[facet]) expected.set(row[facet]!, (expected.get(row[facet]!) ?? 0) + 1);
      const counted = new Map(page.facets![facet]!.filter((value) => value.count > 0).map(({ value, count }) => [value, count]));
      expect(counted).toEqual(expected);
    }
    // Values within a facet are OR-ed: the tool facet under the outcome filter lists tools not chosen too.
    expect(page.facets!.tool!.map((value) => value.value)).toContain('read_file');
  });

  it('finds a case-insensitive substring in arguments, paths, outputs and reasons, as many calls as hold it', () => {
    const trails = new Map(all.map((row) => [row.callId, searchable(store.forCall(row.callId))]));
    for (const text of ['SRC/LIB/billing', 'nothing to commit', 'use the staging branch', 'billing.internal']) {
      const page = explorePage(store, { filter: { text }, limit: 500 });
      const expected = all.filter((row) => trails.get(row.callId)!.includes(text.toLowerCase()));
      expect(expected.length, text).toBeGreaterThan(0);
      expect(page.total, text).toBe(expected.length);
      expect(page.rows.map((row) => row.callId), text).toEqual(expected.slice(0, 500).map((row) => row.callId));
    }
    // Search and facets together.
    const both = explorePage(store, { filter: { text: 'staging branch', tool: ['edit_file'] }, facets: true });
    expect(both.rows.every((row) => row.tool === 'edit_file' && row.outcome === 'rejected' && row.decider === 'person')).toBe(true);
    expect(both.facets!.tool!.reduce((sum, value) => sum + value.count, 0)).toBe(explorePage(store, { filter: { text: 'staging branch' } }).total);
  });

  it('searches what a person typed literally: quotes, stars and NEAR( are text, regex-looking input is noted', () => {
    appendCall(store, 'literal-call', 'echo', { text: 'say "hi*" NEAR(x) a|b' }, 'ok');
    for (const text of ['"hi*"', 'NEAR(x)', 'a|b', 'say "hi']) {
      const page = explorePage(store, { filter: { text } });
      expect(page.rows.map((row) => row.callId), text).toEqual(['literal-call']);
    }
    expect(explorePage(store, { filter: { text: 'a|b' } }).notice).toMatch(/literally.*not as a regular expression/);
    const regex = explorePage(store, { filter: { text: 'src.*ts' } });
    expect(regex).toMatchObject({ rows: [], total: 0 });
    expect(regex.notice).toContain('"src.*ts"');
    expect(explorePage(store, { filter: { text: '^read' } }).notice).toBeDefined();
    expect(explorePage(store, { filter: { text: 'AND OR NOT' } })).toMatchObject({ rows: [], total: 0 });
  });

  it('refuses a search shorter than three characters and a time that is not ISO 8601, saying why and what to do', () => {
    const short = gateError(() => explorePage(store, { filter: { text: 'ab' } }));
    expect(short.code).toBe('EVALIDATION');
    expect(short.message).toMatch(/2 characters long: type at least 3.*3-character pieces/);
    const badTime = gateError(() => explorePage(store, { filter: { from: 'yesterday' } }));
    expect(badTime.code).toBe('EVALIDATION');
    expect(badTime.message).toMatch(/`from` is not a time: "yesterday". Give an ISO 8601 time/);
    expect(gateError(() => explorePage(store, { filter: { from: '2026-11-20', to: '2026-11-01' } })).message).toMatch(/not before its `to`/);
    expect(gateError(() => iterateCalls(store, { text: 'x' })).code).toBe('EVALIDATION');
  });

  it('answers a filter that matches nothing at once, with an empty page and a total of 0', () => {
    const { result: page, rowsRead } = countSqliteWork(() => explorePage(store, { filter: { tool: ['no_such_tool'], session: ['nobody'] }, facets: true }));
    expect(page).toMatchObject({ rows: [], total: 0 });
    expect(page.next).toBeUndefined();
    // Answered in SQLite: only the facets' values (about 130 here) reach JavaScript, never the log's 3,000 calls.
    expect(rowsRead).toBeLessThan(300);
    expect(page.facets!.tool).toContainEqual({ value: 'no_such_tool', count: 0 });
  });

  it('filters by time range with the newest call first', () => {
    const from = '2026-11-10T00:00:00.000Z';
    const to = '2026-11-12T00:00:00.000Z';
    const page = explorePage(store, { filter: { from, to }, limit: 500 });
    const expected = all.filter((row) => row.time >= from && row.time < to);
    expect(expected.length).toBeGreaterThan(100);
    expect(page.total).toBe(expected.length);
    expect(page.rows.map((row) => row.callId)).toEqual(expected.map((row) => row.callId));
  });
});

describe('the call index kept up to date', () => {
  it('is rebuilt from the records when deleted by hand, and caught up when behind, giving the same rows', async () => {
    const { root: otherRoot, paths: other } = await syntheticHome(400, 9);
    try {
      const first = new AuditStore(other);
      const before = [...iterateCalls(first, {})];
      first.close();

      rmSync(indexPathFor(other.path));
      const rebuilt = new AuditStore(other);
      expect(rebuilt.callIndexCatchUp()).toMatchObject({ kind: 'rebuilt', records: rebuilt.lastSeq() });
      expect([...iterateCalls(rebuilt, {})]).toEqual(before);
      rebuilt.close();

      // As a database an older gate wrote on: the index holds only the first half of the records.
      onDatabase(indexPathFor(other.path), `UPDATE calls_index_state SET value = 1000 WHERE key = 'watermark'; DELETE FROM calls WHERE last_seq > 1000`);
      const caughtUp = new AuditStore(other);
      expect(caughtUp.callIndexCatchUp()).toMatchObject({ kind: 'caught-up', records: caughtUp.lastSeq() - 1000 });
      expect([...iterateCalls(caughtUp, {})]).toEqual(before);
      caughtUp.close();
    } finally {
      removeTempFolder(otherRoot);
    }
  });

  it('is rebuilt when its file is another log\'s, however far that log went', async () => {
    const { root: otherRoot, paths: other } = await syntheticHome(50, 12);
    try {
      // The running store's index has more calls than the other log, and names its own log.
      store.callIndex();
      store.close();
      copyFileSync(indexPathFor(paths.path), indexPathFor(other.path));
      const reopened = new AuditStore(other);
      expect(reopened.callIndexCatchUp()).toMatchObject({ kind: 'rebuilt' });
      expect(explorePage(reopened, {}).total).toBe(50);
      reopened.close();
    } finally {
      store = new AuditStore(paths);
      removeTempFolder(otherRoot);
    }
  });

  it('is queried read-only: as it is, saying when it is behind, or built in memory when the database has none', async () => {
    const { root: otherRoot, paths: other } = await syntheticHome(300, 11);
    try {
      const writer = new AuditStore(other);
      const expected = explorePage(writer, { limit: 50 });
      writer.close();
      const reader = new AuditStore({ ...other, readonly: true });
      const read = explorePage(reader, { limit: 50 });
      expect(read.rows).toEqual(expected.rows);
      expect(read.notice).toBeUndefined();
      reader.close();

      onDatabase(indexPathFor(other.path), `UPDATE calls_index_state SET value = value - 10 WHERE key = 'watermark'`);
      const behind = new AuditStore({ ...other, readonly: true });
      expect(explorePage(behind, {}).notice).toMatch(/the call index is 10 records behind the log/);
      behind.close();

      rmSync(indexPathFor(other.path));
      const bare = new AuditStore({ ...other, readonly: true });
      const built = explorePage(bare, { limit: 50, facets: true });
      expect(built.rows).toEqual(expected.rows);
      expect(built.total).toBe(300);
      expect(built.notice).toBeUndefined();
      bare.close();
    } finally {
      removeTempFolder(otherRoot);
    }
  });
});
