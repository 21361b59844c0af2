import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import type { AuditRecord } from '../shared/audit';
import type { CallDetail, CallRow, ExplorerFilter, ExplorerPage, ExplorerStats } from '../shared/explorer';
import { ConsolePage } from './pages/ConsolePage';
import { startServedGate, type ServedGate } from './support/servedGate';

// The Audit tab's explorer. The first spec answers the console's WebSocket itself with a million
// calls made up on the fly (no gate writes a million calls in a test's time) and measures a scripted
// scroll; the second runs a real gate over a generated audit log of 50,000 calls.

let gate: ServedGate | undefined;
test.afterEach(async () => {
  await gate?.stop();
  gate = undefined;
});

const CALLS = 1_000_000;
const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const TOOLS = ['read_file', 'write_file', 'shell_exec', 'list_dir'] as const;

/** The made-up call with first record `seq` (seq 1 is the oldest; one call every 2 seconds). */
function madeUpRow(seq: number): CallRow {
  const tool = TOOLS[seq % TOOLS.length]!;
  const outcome = seq % 17 === 0 ? 'rejected' : seq % 10 === 0 ? 'failed' : 'completed';
  const path = seq % 7 === 0 ? `docs/notes-${seq}.md` : `src/file-${seq}.ts`;
  return {
    callId: `call-${seq}`,
    seq,
    lastSeq: seq,
    time: new Date(NOW - (CALLS - seq) * 2_000).toISOString(),
    tool,
    agent: 'claude-code',
    session: `session-${Math.floor(seq / 5_000)}`,
    tier: tool === 'read_file' || tool === 'list_dir' ? 'SAFE' : 'ELEVATED',
    argsBrief: tool === 'shell_exec' ? `command=git status ${seq}` : `path=${path}`,
    decision: tool === 'write_file' ? 'ask' : 'allow',
    decider: tool === 'write_file' ? 'person' : 'rule',
    ...(tool === 'write_file' ? { decidedDetail: 'approved', waitedMs: 3_200 } : { rule: 'tier:SAFE→allow' }),
    outcome,
    ranMs: 8,
  };
}

function matches(row: CallRow, filter: ExplorerFilter): boolean {
  if (filter.tool && !filter.tool.includes(row.tool)) return false;
  if (filter.outcome && !filter.outcome.includes(row.outcome)) return false;
  if (filter.text && !row.argsBrief.toLowerCase().includes(filter.text.toLowerCase())) return false;
  return true;
}

/** A keyset page of the made-up calls, newest first, below `beforeSeq`. */
function madeUpPage(request: { filter?: ExplorerFilter; limit?: number; cursor?: { beforeSeq: number }; facets?: boolean }): ExplorerPage {
  const filter = request.filter ?? {};
  const limit = request.limit ?? 100;
  const rows: CallRow[] = [];
  let seq = (request.cursor?.beforeSeq ?? CALLS + 1) - 1;
  for (; seq >= 1 && rows.length < limit; seq--) {
    const row = madeUpRow(seq);
    if (matches(row, filter)) rows.push(row);
  }
  return {
    rows,
    ...(seq >= 1 && rows.length === limit ? { next: { beforeSeq: rows.at(-1)!.seq } } : {}),
    ...(request.facets
      ? {
          total: filter.tool ? filter.tool.length * (CALLS / TOOLS.length) : CALLS,
          facets: {
            tool: TOOLS.map((tool) => ({ value: tool, count: CALLS / TOOLS.length })),
            outcome: [
              { value: 'completed', count: 841_177 },
              { value: 'failed', count: 100_000 },
              { value: 'rejected', count: 58_823 },
            ],
            decider: [
              { value: 'rule', count: 750_000 },
              { value: 'person', count: 250_000 },
            ],
          },
        }
      : {}),
    tookMs: 3,
  };
}

function madeUpDetail(callId: string): CallDetail {
  const row = madeUpRow(Number(callId.replace('call-', '')));
  const at = (ms: number) => new Date(Date.parse(row.time) + ms).toISOString();
  const kinds: Array<[AuditRecord['kind'], number, unknown]> = [
    ['invoked', 0, { tool: row.tool, arguments: { path: row.argsBrief.replace('path=', ''), content: 'hello\n' } }],
    ['policy', 2, { decision: 'ask', rule: 'tier:ELEVATED→ask', reason: 'writes need a person' }],
    ['approval-requested', 4, { preview: { kind: 'diff', path: 'docs/notes.md', added: 1, removed: 1, unified: '@@ -1 +1 @@\n-old line\n+hello' } }],
    ['approval-decided', 3_204, { outcome: 'approved', reason: 'fine' }],
    ['started', 3_205, {}],
    ['completed', 3_213, { responseHash: 'c'.repeat(64), output: { written: 6 } }],
  ];
  const records = kinds.map(([kind, ms, payload], index) => ({
    seq: row.seq + index,
    callId,
    kind,
    time: at(ms),
    payload,
    prevHash: 'a'.repeat(64),
    hash: 'b'.repeat(64),
  }));
  return { row, records, logSize: CALLS * 6, replay: { possible: false, reason: 'write_file changes files' } };
}

const STATS: ExplorerStats = {
  overTime: { bucketMs: 3_600_000, buckets: [{ start: new Date(NOW - 3_600_000).toISOString(), counts: { completed: 1500, failed: 180 } }] },
  waits: [{ upToMs: 5_000, count: 250_000 }],
  topTools: TOOLS.map((tool) => ({ tool, count: 250_000 })),
  denialsByRule: [{ rule: 'person', count: 58_823 }],
  sessions: [{ session: 'session-199', agent: 'claude-code', first: new Date(NOW - 10_000_000).toISOString(), last: new Date(NOW).toISOString(), calls: 5000, failed: 500, denied: 294 }],
  tookMs: 5,
};

/** Answers the console's WebSocket: the snapshots empty, the explorer from the made-up calls. Returns the explorer requests seen. */
async function answerWithMadeUpCalls(page: Page): Promise<Array<{ method: string; params: Record<string, unknown> }>> {
  const seen: Array<{ method: string; params: Record<string, unknown> }> = [];
  await page.routeWebSocket(/\/bridge$/, (socket) => {
    socket.onMessage((message) => {
      const { id, method, params } = JSON.parse(String(message)) as { id: number; method: string; params: Record<string, unknown> };
      const answers: Record<string, () => unknown> = {
        getInfo: () => ({ version: '0.1.0', workspace: '/ws', approvalTimeoutMs: 300_000, sandbox: { kind: 'bubblewrap' } }),
        listTools: () => [],
        listCalls: () => [],
        listApprovals: () => [],
        listAudit: () => [],
        listPermissions: () => [],
        verifyAudit: () => ({ ok: true, records: CALLS * 6 }),
        exploreCalls: () => madeUpPage(params),
        explorerStats: () => STATS,
        callDetail: () => madeUpDetail(String(params.callId)),
        checkpointStatus: () => ({}),
      };
      if (method in answers && method !== 'getInfo' && !method.startsWith('list') && method !== 'verifyAudit') seen.push({ method, params });
      const answer = answers[method];
      const reply = answer ? { ok: true, value: answer() } : { ok: false, error: { code: 'EUNAVAILABLE', message: `no answer for ${method}` } };
      socket.send(JSON.stringify({ type: 'reply', id, reply }));
    });
  });
  return seen;
}

/** Percentile of sorted numbers. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

test('a million calls: facets, search, the URL, a detail with its diff, and a smooth scripted scroll that keeps loading', async ({ page }) => {
  gate = await startServedGate();
  const seen = await answerWithMadeUpCalls(page);
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const { audit } = consolePage;
  await audit.show();
  await expect(audit.callRow(`call-${CALLS}`)).toBeVisible();
  await expect(audit.callCount()).toContainText('1,000,000 calls');
  expect(await audit.callRows().count()).toBeLessThan(80);

  // A facet click narrows the view, asks the gate for it, and puts it in the URL; back undoes it.
  await audit.facetValue('tool', 'write_file').click();
  await expect(audit.facetValue('tool', 'write_file')).toHaveAttribute('aria-pressed', 'true');
  await expect(audit.callRows().first()).toHaveAttribute('data-call-id', 'call-999997');
  expect(seen.filter((r) => r.method === 'exploreCalls').at(-1)?.params).toMatchObject({ filter: { tool: ['write_file'] }, facets: true });
  expect(new URL(page.url()).searchParams.getAll('tool')).toEqual(['write_file']);
  await page.goBack();
  await expect(audit.facetValue('tool', 'write_file')).toHaveAttribute('aria-pressed', 'false');
  await expect(audit.callRow(`call-${CALLS}`)).toBeVisible();
  await page.goForward();
  await expect(audit.facetValue('tool', 'write_file')).toHaveAttribute('aria-pressed', 'true');

  // Two characters are refused at once, without asking the gate; three search.
  const asked = seen.length;
  await audit.searchBox().fill('no');
  await expect(page.getByTestId('explorer-search-problem')).toContainText('at least 3 characters');
  expect(seen.length).toBe(asked);
  await audit.search('notes-');
  await expect(audit.callRows().first()).toContainText('docs/notes-');
  expect(new URL(page.url()).searchParams.get('q')).toBe('notes-');
  await audit.search('no-such-path-anywhere');
  await expect(page.getByTestId('explorer-empty')).toHaveText('No call matches. Loosen the tool and search text filters to see more.');

  // A copied console URL opens the same view (the token stays in the tab's session).
  await page.goto(new URL(`/?tool=write_file&q=notes-`, page.url()).toString());
  await expect(consolePage.selectedTab()).toHaveText(/^Audit/);
  await expect(audit.searchBox()).toHaveValue('notes-');
  const first = audit.callRows().first();
  const firstId = (await first.getAttribute('data-call-id'))!;

  // Its detail: the timeline, the diff the person saw, the place in the log; Esc closes it.
  await first.click();
  await expect(audit.detail()).toBeVisible();
  await expect(audit.detail().getByTestId('timeline-step')).toHaveCount(6);
  await expect(audit.detail().getByTestId('detail-diff')).toContainText('+hello');
  await expect(audit.detail()).toContainText(`seq ${Number(firstId.slice(5)).toLocaleString('en-US')} of 6,000,000`);
  expect(new URL(page.url()).searchParams.get('open')).toBe(firstId);
  await audit.callScroll().press('ArrowDown');
  await expect(audit.detail()).not.toContainText(`call ${firstId} `);
  await audit.callScroll().press('Escape');
  await expect(audit.detail()).toHaveCount(0);

  // Every call again, then 200 wheel steps with each frame timed in the page.
  await page.goto(new URL('/', page.url()).toString());
  await audit.show();
  await expect(audit.callRow(`call-${CALLS}`)).toBeVisible();
  const pagesBefore = seen.filter((r) => r.method === 'exploreCalls' && r.params.cursor).length;
  await audit.callScroll().hover();
  await page.evaluate(`(() => {
    window.__frames = [];
    let last = performance.now();
    const tick = (now) => { window.__frames.push(now - last); last = now; if (!window.__stopFrames) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  })()`);
  for (let step = 0; step < 200; step++) await page.mouse.wheel(0, 320);
  await page.waitForTimeout(300);
  const frames = (await page.evaluate(`(() => { window.__stopFrames = true; return window.__frames; })()`)) as number[];
  const sorted = frames.slice(1).sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  const p95 = percentile(sorted, 95);
  const max = sorted.at(-1) ?? 0;
  const pagesLoaded = seen.filter((r) => r.method === 'exploreCalls' && r.params.cursor).length - pagesBefore;
  const lastShown = Number(await audit.callRows().last().getAttribute('aria-rowindex'));
  console.log(
    `Explorer over ${CALLS.toLocaleString('en-US')} calls, 200 wheel steps: ${sorted.length} frames, ` +
      `p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${max.toFixed(1)} ms; ${pagesLoaded} pages loaded on the way, row ${lastShown} reached`,
  );
  expect(pagesLoaded).toBeGreaterThan(3);
  expect(lastShown).toBeGreaterThan(1_000);
  expect(await audit.callRows().count()).toBeLessThan(100);
  // A generous bound for a shared, busy machine: no frame long enough to feel stuck.
  expect(max).toBeLessThan(250);
});

test('over a generated log of 50,000 calls served by a real gate: filter, search, a call with its diff, and the view exported', async ({ page }) => {
  test.setTimeout(240_000);
  // bench/syntheticAudit.ts comes with the calls index; the path is computed so this file compiles before it lands.
  const syntheticAudit = '../bench/syntheticAudit';
  const { writeSyntheticLog } = (await import(syntheticAudit)) as {
    writeSyntheticLog(options: { home: string; calls: number; seed?: number; end?: Date }): Promise<{ records: number; calls: number }>;
  };
  const home = mkdtempSync(join(tmpdir(), 'toolgate-e2e-explorer-'));
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-e2e-ws-'));
  const written = await writeSyntheticLog({ home, calls: 50_000, seed: 12, end: new Date() });
  expect(written.calls).toBe(50_000);
  gate = await startServedGate([], { folders: { home, workspace } });
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const { audit } = consolePage;
  await audit.show();
  await expect(audit.callCount()).toContainText('50,000 calls', { timeout: 30_000 });
  await expect(audit.callRows().first()).toBeVisible();

  // Filter by a facet: every row shown is of that tool.
  await audit.facetValue('tool', 'write_file').click();
  await expect(audit.callRows().first()).toHaveAttribute('data-call-id', /.+/);
  const tools = await audit.callRows().locator('.call-col-tool').allTextContents();
  expect(new Set(tools)).toEqual(new Set(['write_file']));

  // Search a substring of a path, then open a call that was asked about and see its diff.
  await audit.search('.md');
  await expect(audit.callRows().first()).toContainText('.md');
  await audit.facetValue('decider', 'person').click();
  await audit.callRows().first().click();
  await expect(audit.detail().getByTestId('detail-shown')).toBeVisible();
  await expect(audit.detail().getByTestId('detail-diff-path')).toContainText('.md');
  await expect(audit.detail().getByTestId('timeline-step').first()).toHaveAttribute('data-kind', 'invoked');

  // Export the view: the console's export button (helper export's) saves the filtered calls.
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: /^Export/ }).first().click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/\.(jsonl|json)$/);
});
