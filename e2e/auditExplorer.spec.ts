import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { writeSyntheticLog } from '../bench/syntheticAudit';
import { ConsolePage } from './pages/ConsolePage';
import { answerWithMadeUpCalls, CALLS } from './support/madeUpCalls';
import { startServedGate, type ServedGate } from './support/servedGate';

// The Audit tab's explorer. The first spec answers the console's WebSocket itself with a million
// calls made up on the fly (no gate writes a million calls in a test's time) and measures a scripted
// scroll; the second runs a real gate over a generated audit log of 20,000 calls, enough for a
// search's view to run past a thousand rows, so older pages keep coming from the real index.

let gate: ServedGate | undefined;
test.afterEach(async () => {
  await gate?.stop();
  gate = undefined;
});

/** Percentile of sorted numbers. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Scrolls the hovered list by `steps` wheel steps while the page times every animation frame. */
async function timedScroll(page: Page, steps: number): Promise<{ frames: number; p50: number; p95: number; max: number }> {
  await page.evaluate(`(() => {
    window.__frames = [];
    window.__stopFrames = false;
    let last = performance.now();
    const tick = (now) => { window.__frames.push(now - last); last = now; if (!window.__stopFrames) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  })()`);
  for (let step = 0; step < steps; step++) await page.mouse.wheel(0, 320);
  await page.waitForTimeout(300);
  const frames = (await page.evaluate(`(() => { window.__stopFrames = true; return window.__frames; })()`)) as number[];
  const sorted = frames.slice(1).sort((a, b) => a - b);
  return { frames: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted.at(-1) ?? 0 };
}

test('a million calls: facets, search, the URL, a detail with its diff, and a smooth scripted scroll that keeps loading', async ({ page }) => {
  // Made-up calls by the hundred thousand: on a CI machine shared with the unit tests this took over a minute.
  test.setTimeout(180_000);
  gate = await startServedGate();
  const { seen, push } = await answerWithMadeUpCalls(page);
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
  // The arrow keys move (the open pane follows), Esc closes, Enter opens again.
  const secondId = (await audit.callRows().nth(1).getAttribute('data-call-id'))!;
  await audit.callScroll().press('ArrowDown');
  await expect(audit.callRow(secondId)).toHaveAttribute('aria-selected', 'true');
  await expect(audit.detail()).toContainText(`call ${secondId}`);
  expect(new URL(page.url()).searchParams.get('open')).toBe(secondId);
  await audit.callScroll().press('Escape');
  await expect(audit.detail()).toHaveCount(0);
  await audit.callScroll().press('ArrowUp');
  await audit.callScroll().press('Enter');
  await expect(audit.detail()).toContainText(`call ${firstId}`);
  await audit.callScroll().press('Escape');

  // Every call again, then 200 wheel steps with each frame timed in the page.
  await page.goto(new URL('/', page.url()).toString());
  await audit.show();
  await expect(audit.callRow(`call-${CALLS}`)).toBeVisible();
  const pagesBefore = seen.filter((r) => r.method === 'exploreCalls' && r.params.cursor).length;
  await audit.callScroll().hover();
  const { frames: frameCount, p50, p95, max } = await timedScroll(page, 200);
  const pagesLoaded = seen.filter((r) => r.method === 'exploreCalls' && r.params.cursor).length - pagesBefore;
  const lastShown = Number(await audit.callRows().last().getAttribute('aria-rowindex'));
  console.log(
    `Explorer over ${CALLS.toLocaleString('en-US')} calls, 200 wheel steps: ${frameCount} frames, ` +
      `p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${max.toFixed(1)} ms; ${pagesLoaded} pages loaded on the way, row ${lastShown} reached`,
  );
  expect(pagesLoaded).toBeGreaterThan(3);
  expect(lastShown).toBeGreaterThan(1_000);
  expect(await audit.callRows().count()).toBeLessThan(100);

  // New calls while scrolled down: a pill counts them and the place is kept; its click goes to the top.
  const topBefore = await audit.callScroll().evaluate((box) => box.scrollTop);
  for (let index = 1; index <= 3; index++) {
    push('auditAppended', { seq: 6_000_000 + index, callId: `new-${index}`, kind: 'invoked', time: new Date().toISOString(), payload: {}, prevHash: 'a'.repeat(64), hash: 'b'.repeat(64) });
  }
  await expect(page.getByTestId('new-calls')).toHaveText('3 new calls ↑');
  expect(await audit.callScroll().evaluate((box) => box.scrollTop)).toBe(topBefore);
  await page.getByTestId('new-calls').click();
  await expect(audit.callRow(`call-${CALLS}`)).toBeVisible();
  await expect(page.getByTestId('new-calls')).toHaveCount(0);

  // Sessions: each one's calls as marks in time; its name filters to it.
  await page.getByText('Sessions and the shape of the day').click();
  await expect(page.getByTestId('session-row').first().locator('rect.session-mark')).toHaveCount(300);
  await page.getByTestId('session-row').first().getByRole('button').click();
  expect(new URL(page.url()).searchParams.get('session')).toBe('session-199');
});

/** Calls in the generated log the real gate serves. */
const GENERATED_CALLS = 20_000;

/** A real gate over a generated audit log of `calls` calls (its state folder made by bench/syntheticAudit.ts). */
async function gateOverGeneratedLog(calls: number): Promise<ServedGate> {
  const home = mkdtempSync(join(tmpdir(), 'toolgate-e2e-explorer-'));
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-e2e-ws-'));
  const written = await writeSyntheticLog({ home, calls, seed: 12, end: new Date() });
  expect(written.calls).toBe(calls);
  return startServedGate([], { folders: { home, workspace } });
}

test('over a generated log of 20,000 calls served by a real gate: filter by a facet, search, open a call with its diff', async ({ page }) => {
  test.setTimeout(240_000);
  const startedAt = Date.now();
  gate = await gateOverGeneratedLog(GENERATED_CALLS);
  const generatedMs = Date.now() - startedAt;
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const { audit } = consolePage;
  await audit.show();
  await expect(audit.callCount()).toContainText(`${GENERATED_CALLS.toLocaleString('en-US')} calls`);
  await expect(audit.callRows().first()).toBeVisible();

  // Filter by a facet: every row drawn is of that tool, and the count says how many.
  const writes = Number((await audit.facetValue('tool', 'write_file').locator('.facet-count').textContent())!.replace(/,/g, ''));
  await audit.facetValue('tool', 'write_file').click();
  await expect(audit.callCount()).toContainText(`${writes.toLocaleString('en-US')} calls`);
  const tools = await audit.callRows().locator('.call-col-tool').allTextContents();
  expect(new Set(tools)).toEqual(new Set(['write_file']));

  // Search a substring of a path, narrow to the calls a person decided, and open one: its diff as shown.
  await audit.search('.md');
  await expect(audit.callRows().first()).toContainText('.md');
  await audit.facetValue('decider', 'person').click();
  await expect(audit.facetValue('decider', 'person')).toHaveAttribute('aria-pressed', 'true');
  await audit.callRows().first().click();
  await expect(audit.detail().getByTestId('detail-shown')).toBeVisible();
  await expect(audit.detail().getByTestId('detail-diff-path')).toContainText('.md');
  await expect(audit.detail().getByTestId('detail-diff-counts')).toHaveText(/^\s*\+\d+ −\d+$/);
  await expect(audit.detail().getByTestId('timeline-step').first()).toHaveAttribute('data-kind', 'invoked');
  await expect(audit.detail()).toContainText(/seq [\d,]+ of [\d,]+/);

  // Export this view (write_file, ".md", decided by a person): the file holds exactly its calls.
  const viewCount = Number(/([\d,]+) calls/.exec((await audit.callCount().textContent())!)![1]!.replace(/,/g, ''));
  await page.getByTestId('export-open').click();
  const download = page.waitForEvent('download');
  await page.getByRole('group', { name: 'Export this view' }).getByRole('button', { name: 'Download' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/\.jsonl$/);
  const exported = (await readFile(await file.path(), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { tool?: string; decider?: string });
  expect(exported).toHaveLength(viewCount);
  expect(new Set(exported.map((call) => `${call.tool} ${call.decider}`))).toEqual(new Set(['write_file person']));

  // Scroll far down a search's view, timing every frame: older pages keep coming from the real index.
  await page.goto(new URL('/?q=.md', page.url()).toString());
  await expect(audit.callRows().first()).toBeVisible();
  await audit.callScroll().hover();
  const scrolled = await timedScroll(page, 200);
  await expect
    .poll(
      async () => {
        await page.mouse.wheel(0, 3_000);
        return Number(await audit.callRows().last().getAttribute('aria-rowindex'));
      },
      { intervals: [250] },
    )
    .toBeGreaterThan(1_000);
  console.log(
    `Explorer over a real gate's ${GENERATED_CALLS.toLocaleString('en-US')} generated calls (log written and gate started in ${generatedMs} ms), 200 wheel steps: ` +
      `${scrolled.frames} frames, p50 ${scrolled.p50.toFixed(1)} ms, p95 ${scrolled.p95.toFixed(1)} ms, max ${scrolled.max.toFixed(1)} ms`,
  );
});
