// The audit explorer over a generated log (BENCH_AUDIT_CALLS calls, default 1,000,000, in its own
// temp state folder): generating it and building its call index; a facet filter plus one keyset
// page of 100 (target < 50 ms p50) over several filters and pages deep into the log; the first page
// with its total and facet counts; full-text search (target < 100 ms p50) over several substrings;
// the charts; one call's detail. Baseline in the same run: the same pages read from the audit table
// without the index (a scan with LIMIT, as the Audit view read records before).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExplorerFilter } from '../shared/explorer';
import { AuditStore } from '../main/audit/auditStore';
import { callDetail } from '../main/audit/callDetail';
import { explorePage } from '../main/audit/explorerQuery';
import { explorerStats } from '../main/audit/explorerStats';
import { openDatabase } from '../main/audit/sqlite';
import { statePaths } from '../main/state/paths';
import type { BenchSection } from './benchResult';
import { writeSyntheticLog } from './syntheticAudit';

const END = new Date('2026-11-20T00:00:00Z');
const DAY = 24 * 60 * 60 * 1000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Says on stderr which phase the bench has reached, and how long the one before took. */
let phaseStarted = performance.now();
function phase(name: string): void {
  const now = performance.now();
  process.stderr.write(`  [explorer bench] ${name} (${((now - phaseStarted) / 1000).toFixed(1)} s since the last step)\n`);
  phaseStarted = now;
}

function time(samples: number[], run: () => unknown): void {
  const started = performance.now();
  run();
  samples.push(performance.now() - started);
}

/** Generates the log, then times the explorer's queries on it. */
export async function measureAuditExplorer(calls: number, repeats = 5): Promise<BenchSection[]> {
  const home = mkdtempSync(join(tmpdir(), 'toolgate-bench-audit-'));
  try {
    phase(`generating ${calls} calls`);
    const generated = await writeSyntheticLog({ home, calls, seed: 1, end: END });
    phase('generated; timing pages');
    const paths = statePaths(home);
    const bytes = statSync(paths.audit).size;
    const store = new AuditStore({ path: paths.audit, headPath: paths.auditHead });
    try {
      return measure(store, paths.audit, generated, bytes, repeats);
    } finally {
      store.close();
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

function measure(store: AuditStore, databasePath: string, generated: Awaited<ReturnType<typeof writeSyntheticLog>>, bytes: number, repeats: number): BenchSection[] {
  const size = store.lastSeq();
  const newest = explorePage(store, { limit: 1 }).rows[0]!;
  const sessions = explorerStats(store, { from: iso(END.getTime() - DAY) }).sessions.map((session) => session.session);
  const filters: Array<[string, ExplorerFilter]> = [
    ['no filter', {}],
    ['tool = shell_exec', { tool: ['shell_exec'] }],
    ['outcome = rejected or failed', { outcome: ['rejected', 'failed'] }],
    ['write/edit decided by a person', { tool: ['write_file', 'edit_file'], decider: ['person'] }],
    ['one agent session', { session: [sessions[0]!] }],
    ['RESTRICTED and failed', { tier: ['RESTRICTED'], outcome: ['failed'] }],
    ['two days, read_file', { from: iso(END.getTime() - 12 * DAY), to: iso(END.getTime() - 10 * DAY), tool: ['read_file'] }],
  ];
  // Pages at the top, half-way down and near the oldest calls.
  const depths = [undefined, Math.floor(size / 2), Math.floor(size / 20)];
  const page: number[] = [];
  const firstPage: number[] = [];
  for (let r = 0; r < repeats; r++) {
    for (const [, filter] of filters) {
      for (const beforeSeq of depths) time(page, () => explorePage(store, { filter, limit: 100, ...(beforeSeq ? { cursor: { beforeSeq } } : {}) }));
    }
  }
  phase('timing first pages with counts');
  // The first page of a view: its rows, total and facet counts. A new time range each time, so no count is reused.
  for (let r = 0; r < repeats; r++) {
    for (const [, filter] of filters) {
      const from = iso(END.getTime() - (29 - r) * DAY);
      time(firstPage, () => explorePage(store, { filter: { ...filter, from: filter.from ?? from }, limit: 100, facets: true }));
    }
  }
  phase('timing facet clicks');
  const facetClick: number[] = [];
  for (let r = 0; r < repeats; r++) for (const [, filter] of filters) time(facetClick, () => explorePage(store, { filter, limit: 100, facets: true }));

  phase('timing searches');
  const searches = ['billing.internal', 'refreshToken', 'nothing to commit', 'src/lib/cache', 'git push', 'use the staging branch', 'Timeout = 7', 'NO SUCH FILE: docs/queue'];
  const search: number[] = [];
  const searchTotal: number[] = [];
  const searchFacets: number[] = [];
  for (let r = 0; r < repeats; r++) {
    for (const text of searches) {
      time(search, () => explorePage(store, { filter: { text }, limit: 100, cursor: { beforeSeq: size + 1 } }));
      time(searchTotal, () => explorePage(store, { filter: { text }, limit: 100 }));
      time(searchFacets, () => explorePage(store, { filter: { text, tool: ['shell_exec', 'read_file', 'http_fetch'] }, limit: 100, facets: true }));
    }
  }

  phase('timing charts');
  const stats: number[] = [];
  for (let r = 0; r < Math.max(1, Math.floor(repeats / 2)); r++) {
    time(stats, () => explorerStats(store, {}));
    time(stats, () => explorerStats(store, { from: iso(END.getTime() - 2 * DAY) }));
    time(stats, () => explorerStats(store, { tool: ['shell_exec'] }));
  }
  phase('timing details');
  const detail: number[] = [];
  const ids = explorePage(store, { limit: 20, cursor: { beforeSeq: Math.floor(size / 3) } }).rows.map((row) => row.callId);
  for (const id of [...ids, newest.callId]) time(detail, () => callDetail(store, id));

  phase('timing the baseline without the index');
  // Baseline: the same kind of page without the index, from the audit table (a scan with LIMIT).
  const db = openDatabase(databasePath, { readOnly: true });
  const scanPage: number[] = [];
  const scanSearch: number[] = [];
  try {
    const bySession = db.prepare(
      "SELECT * FROM audit WHERE kind = 'invoked' AND json_extract(payload, '$.agentSession') = ? AND seq < ? ORDER BY seq DESC LIMIT 100",
    );
    const byText = db.prepare('SELECT call_id FROM audit WHERE payload LIKE ? AND seq < ? ORDER BY seq DESC LIMIT 100');
    for (let r = 0; r < 2; r++) {
      time(scanPage, () => bySession.all(sessions[0]!, size + 1));
      time(scanPage, () => bySession.all(sessions[0]!, Math.floor(size / 2)));
      time(scanSearch, () => byText.all('%billing.internal%', size + 1));
    }
  } finally {
    db.close();
  }

  phase('done');
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return [
    {
      title: `Audit explorer over ${generated.calls.toLocaleString('en')} generated calls (${generated.records.toLocaleString('en')} records, ${(bytes / 2 ** 20).toFixed(0)} MiB database)`,
      rows: [
        { label: 'facet filter + keyset page of 100 (target < 50)', samples: page },
        { label: 'first page + total + facet counts', samples: firstPage },
        { label: 'facet click (counts reused for the range)', samples: facetClick },
        { label: 'search: page of 100 (target < 100)', samples: search },
        { label: 'search: first page + total', samples: searchTotal },
        { label: 'search + facet filter + facet counts', samples: searchFacets },
        { label: 'charts (stats) over the filter', samples: stats },
        { label: 'one call’s detail', samples: detail },
        { label: 'session page without the index (baseline)', samples: scanPage },
        { label: 'search without the index, LIKE (baseline)', samples: scanSearch },
      ],
      differences: [['facet filter + keyset page of 100 (target < 50)', 'session page without the index (baseline)']],
      notes: [
        `generating the log: ${seconds(generated.writeMs)} to write and hash the records (${Math.round(generated.records / (generated.writeMs / 1000)).toLocaleString('en')} records/s), ` +
          `${seconds(generated.indexMs)} to build the call index from them (${Math.round(generated.records / (generated.indexMs / 1000)).toLocaleString('en')} records/s): what a gate spends opening a log without an index`,
        `filters: ${filters.map(([label]) => label).join('; ')}; each at the newest page, half-way down and near the oldest calls`,
        `searches: ${searches.map((text) => JSON.stringify(text)).join(', ')}`,
      ],
    },
  ];
}
