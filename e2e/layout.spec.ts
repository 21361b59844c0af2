import { expect, test, type Page } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ConsolePage, type ConsoleTab } from './pages/ConsolePage';
import { startServedGate, type ServedGate } from './support/servedGate';

// Every list that holds names an agent or a tool chose (tool names, tiers, agents, sessions, error
// codes, outcomes) lays out in a 900 px and a 1400 px window, in both themes: no identifier broken
// mid-word, no cell over its neighbour, nothing cut off without its full text in a title, no
// sideways page scroll.

let gate: ServedGate;

test.beforeEach(async () => {
  gate = await startServedGate();
});

test.afterEach(async () => {
  await gate.stop();
});

/** An agent whose MCP client declares a long name (what Live, Approvals and Audit show for it). */
const LONG_AGENT = 'claude-code-orchestrator-subagent-refactoring-worker';
/** A tool the gate does not know, with the kind of long name agents invent. */
const LONG_TOOL = 'workspace_search_and_replace_across_every_file_in_repository';

/** Where each tab shows identifiers: elements that must stay on one line, whole or titled. */
const IDENTIFIERS: Record<ConsoleTab, string[]> = {
  Live: [
    '[data-testid="call-row"] .tool-name',
    '[data-testid="call-row"] [data-testid="tier-badge"]',
    '[data-testid="call-row"] .status',
    '[data-testid="call-row"] .agent-name',
    '[data-testid="call-row"] .error-code',
    '[data-testid="call-row"] .step-name',
    '[data-testid="call-row"] .link-button',
    '.live-table th',
  ],
  Approvals: [
    '[data-testid="approval-card"] .approval-head h3',
    '[data-testid="approval-card"] [data-testid="tier-badge"]',
    '[data-testid="agent-client"]',
    '[data-testid="approval-agent"] code',
    '.agent-group-title',
  ],
  Audit: [
    '[data-testid="explorer-row"] [role="cell"]',
    '.call-list-head [role="columnheader"]',
    '.facet-name',
    '[data-testid="call-detail"] h3',
    '[data-testid="call-detail"] .kind',
    '[data-testid="call-detail"] .detail-id',
  ],
  Tools: ['[data-testid="tool-row"] .tool-name', '[data-testid="tool-row"] [data-testid="tier-badge"]'],
  Permissions: ['[data-testid="permission-row"] > td:not(.permission-actions)'],
  Settings: ['.settings-table th code', '.settings-table td'],
};

/** Where each tab shows phrases of names (rules, sources, scopes): they may wrap between words, never inside one. */
const PHRASES: Record<ConsoleTab, string[]> = {
  Live: ['[data-testid="call-row"] .decided-by', '[data-testid="call-row"] .call-agent .note'],
  Approvals: ['[data-testid="approval-card"] .approval-facts dd'],
  Audit: ['[data-testid="call-detail"] .detail-facts dd'],
  Tools: ['[data-testid="tool-row"] > td:not(.tool-identity)'],
  Permissions: ['[data-testid="permission-row"] > td.permission-actions'],
  Settings: ['.settings-table th .note'],
};

/** Identifiers that must stay in view, never cut to an ellipsis (the error code is the row's point). */
const NEVER_CLIPPED = ['[data-testid="explorer-row"] .error-code', '[data-testid="call-row"] .error-code'];

/** What the page finds wrong with the layout of the given identifiers, one line per fault. */
function layoutFaults(page: Page, tab: ConsoleTab): Promise<string[]> {
  const [selectors, phrases] = [IDENTIFIERS[tab], PHRASES[tab]];
  // The e2e code is typed without the DOM library, so the check runs as page source.
  return page.evaluate(`((selectors, phrases, neverClipped) => {
    const faults = [];
    const label = (el) => (el.getAttribute('data-testid') || el.className || el.tagName) + ' "' + el.textContent.trim().slice(0, 60) + '"';
    const clips = (el) => { const s = getComputedStyle(el); return s.overflowX !== 'visible' || s.overflowY !== 'visible'; };
    const scrollsSideways = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
    const cellOf = (el) => el.closest('td, th, [role="cell"], [role="columnheader"]');
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth) faults.push('the page scrolls sideways: ' + doc.scrollWidth + ' > ' + doc.clientWidth);
    const rows = new Set();
    for (const selector of selectors) {
      for (const el of document.querySelectorAll(selector)) {
        const text = el.textContent.trim();
        if (!text || el.getClientRects().length === 0) continue;
        const cell = cellOf(el);
        if (cell && cell.parentElement) rows.add(cell.parentElement);
        // One line: the text's fragments all sit on one line box.
        const range = document.createRange();
        range.selectNodeContents(el);
        const lineHeight = parseFloat(getComputedStyle(el).lineHeight) || parseFloat(getComputedStyle(el).fontSize) * 1.2;
        const tops = [...range.getClientRects()].filter((r) => r.width > 0).map((r) => r.top);
        if (tops.length > 0 && Math.max(...tops) - Math.min(...tops) > lineHeight / 2) faults.push(label(el) + ' breaks over lines');
        // Clipped: by its own overflow, or by an ancestor that hides what passes its edge.
        const box = el.getBoundingClientRect();
        let clipped = el.scrollWidth > el.clientWidth + 1 && clips(el);
        for (let up = el.parentElement; up && !clipped && up !== document.body; up = up.parentElement) {
          if (!clips(up)) continue;
          const edge = up.getBoundingClientRect();
          if (box.right > edge.right + 1 || box.left < edge.left - 1) {
            if (scrollsSideways(up)) break;
            clipped = true;
          }
          break;
        }
        if (clipped) {
          if (neverClipped.some((s) => el.matches(s))) faults.push(label(el) + ' is cut off');
          const title = el.closest('[title]')?.getAttribute('title') || '';
          if (!title.includes(text)) faults.push(label(el) + ' is cut off with no title holding it (title: "' + title + '")');
        }
        // Cut off at the window's edge with no way to scroll to it.
        if (box.right > window.innerWidth + 1) {
          let scroller = false;
          for (let up = el.parentElement; up; up = up.parentElement) if (scrollsSideways(up) && up.scrollWidth > up.clientWidth) scroller = true;
          if (!scroller) faults.push(label(el) + ' runs past the window edge (' + Math.round(box.right) + ' px) with no scroll');
        }
        // Text wider than its own box, not clipped: it spills over whatever is beside it.
        if (el.clientWidth > 0 && !clips(el) && el.scrollWidth > el.clientWidth + 1) faults.push(label(el) + ' spills over its neighbour');
        // A column squeezed to nothing is a column gone.
        if (box.width < 12) faults.push(label(el) + ' is squeezed to ' + Math.round(box.width) + ' px');
        // Visible inside its own cell: no identifier spills over the next column.
        if (cell && cell !== el && !clipped) {
          const c = cell.getBoundingClientRect();
          if (box.right > c.right + 1 || box.left < c.left - 1) faults.push(label(el) + ' spills out of its cell');
        }
      }
    }
    // Phrases: each word (a run without spaces; a hyphen does not end it) on one line.
    for (const selector of phrases) {
      for (const el of document.querySelectorAll(selector)) {
        if (el.getClientRects().length === 0) continue;
        const lineHeight = parseFloat(getComputedStyle(el).lineHeight) || parseFloat(getComputedStyle(el).fontSize) * 1.2;
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          for (const word of node.data.matchAll(/\\S+/g)) {
            const range = document.createRange();
            range.setStart(node, word.index);
            range.setEnd(node, word.index + word[0].length);
            const tops = [...range.getClientRects()].filter((r) => r.width > 0).map((r) => r.top);
            if (tops.length > 1 && Math.max(...tops) - Math.min(...tops) > lineHeight / 2) faults.push(label(el) + ' breaks the word "' + word[0] + '"');
          }
        }
      }
    }
    // Neighbour cells of a row holding identifiers do not overlap.
    for (const row of rows) {
      const cells = [...row.children].filter((c) => c.getClientRects().length > 0).map((c) => [c, c.getBoundingClientRect()]);
      // A grid row's cells all fit in the row (a table's overflow is its scroll box's to show).
      const last = cells.at(-1);
      if (row.getAttribute('role') === 'row' && last && last[1].right > row.getBoundingClientRect().right + 1) faults.push(label(last[0]) + ' runs past the end of its row');
      for (let i = 1; i < cells.length; i++) {
        const [prev, a] = cells[i - 1];
        const [next, b] = cells[i];
        if (a.right > b.left + 1 && a.top < b.bottom && b.top < a.bottom) faults.push(label(prev) + ' overlaps ' + label(next));
      }
    }
    return faults;
  })(${JSON.stringify(selectors)}, ${JSON.stringify(phrases)}, ${JSON.stringify(NEVER_CLIPPED)})`);
}

/** Fills every tab: calls that ran, failed, were refused and denied, one still waiting, a session grant. */
async function fillTabs(consolePage: ConsolePage): Promise<{ waiting: Promise<unknown> }> {
  const agent = new Client({ name: LONG_AGENT, version: '12.34.567-beta.8' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(gate.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${gate.token}` } } }));
  const { approvals, live } = consolePage;

  await agent.callTool({ name: 'echo', arguments: { text: 'a short one' } });
  // An unknown tool is a protocol error (invalid params) that names the tools the agent may call.
  await expect(agent.callTool({ name: LONG_TOOL, arguments: { pattern: 'foo', replacement: 'bar' } })).rejects.toThrow(/ENOTFOUND: no tool named/);

  const denied = agent.callTool({ name: 'write_file', arguments: { path: 'src/some/deeply/nested/folder/configuration.json', content: '{}\n' } });
  await approvals.deny('not this file', await approvals.waitForPrompt('write_file'));
  expect((await denied).isError).toBe(true);

  // Approved for this agent session: a grant shows in Permissions.
  const shell = agent.callTool({ name: 'shell_exec', arguments: { command: 'ls /definitely/not/here' } });
  const card = await approvals.waitForPrompt('shell_exec');
  await approvals.chooseScope(card, 'session');
  await approvals.saveRuleButton(card).click();
  await expect(card).toHaveCount(0);
  await shell;

  const waiting = agent.callTool({ name: 'write_file', arguments: { path: 'still-waiting.txt', content: 'x\n' } });
  await live.waitForStatus('write_file', 'awaiting-approval');
  return { waiting: waiting.catch(() => undefined) };
}

test('every tab lays out its long names at 900 and 1400 px, in both themes', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1400, height: 900 });
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  await fillTabs(consolePage);

  const faults: string[] = [];
  for (const width of [900, 1400]) {
    await page.setViewportSize({ width, height: 900 });
    for (const theme of ['light', 'dark'] as const) {
      await page.getByRole('combobox', { name: 'Theme' }).selectOption(theme);
      for (const tab of Object.keys(IDENTIFIERS) as ConsoleTab[]) {
        await consolePage.tab(tab);
        if (tab === 'Audit') {
          await expect(consolePage.audit.callRows().first()).toBeVisible();
          faults.push(...(await layoutFaults(page, 'Audit')).map((f) => `${width} px ${theme} Audit: ${f}`));
          if (width === 900 && theme === 'light') await page.screenshot({ path: '/tmp/layout-audit-900.png', fullPage: true });
          // With a call's detail open beside the list.
          await consolePage.audit.callRows().filter({ hasText: 'EDENIED' }).first().click();
          await expect(consolePage.audit.detail()).toBeVisible();
          faults.push(...(await layoutFaults(page, 'Audit')).map((f) => `${width} px ${theme} Audit detail: ${f}`));
          if (width === 900 && theme === 'dark') await page.screenshot({ path: '/tmp/layout-audit-detail-900.png', fullPage: true });
          await consolePage.audit.callScroll().press('Escape');
          continue;
        }
        if (tab === 'Live') await expect(consolePage.live.rows().first()).toBeVisible();
        if (tab === 'Tools') await expect(consolePage.tools.rows().first()).toBeVisible();
        if (tab === 'Permissions') await expect(page.getByTestId('permission-row').first()).toBeVisible();
        faults.push(...(await layoutFaults(page, tab)).map((f) => `${width} px ${theme} ${tab}: ${f}`));
        if (width === 900 && theme === 'light' && (tab === 'Live' || tab === 'Approvals')) {
          await page.screenshot({ path: `/tmp/layout-${tab.toLowerCase()}-900.png`, fullPage: true });
        }
      }
    }
  }
  expect(faults).toEqual([]);
});
