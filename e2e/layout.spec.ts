import { expect, test } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ConsolePage, type ConsoleTab } from './pages/ConsolePage';
import { LAYOUT_WIDTHS, layoutFaults, THEMES, type LayoutChecks } from './support/layoutFaults';
import { startServedGate, type ServedGate } from './support/servedGate';

// Every list that holds names an agent or a tool chose (tool names, tiers, agents, sessions, error
// codes, outcomes) lays out in a 900 px and a 1400 px window, in both themes (see layoutFaults).

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
  // The notes are free text, wrapped anywhere; this spec keeps none.
  Memory: [],
  Settings: ['.settings-table th code', '.settings-table td'],
};

/** Where each tab shows phrases of names (rules, sources, scopes): they may wrap between words, never inside one. */
const PHRASES: Record<ConsoleTab, string[]> = {
  Live: ['[data-testid="call-row"] .decided-by', '[data-testid="call-row"] .call-agent .note'],
  Approvals: ['[data-testid="approval-card"] .approval-facts dd'],
  Audit: ['[data-testid="call-detail"] .detail-facts dd'],
  Tools: ['[data-testid="tool-row"] > td:not(.tool-identity)'],
  Permissions: ['[data-testid="permission-row"] > td.permission-actions'],
  Memory: [],
  Settings: ['.settings-table th .note'],
};

/** Identifiers that must stay in view, never cut to an ellipsis (the error code is the row's point). */
const NEVER_CLIPPED = ['[data-testid="explorer-row"] .error-code', '[data-testid="call-row"] .error-code'];

function checksOf(tab: ConsoleTab): LayoutChecks {
  return { identifiers: IDENTIFIERS[tab], phrases: PHRASES[tab], neverClipped: NEVER_CLIPPED };
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
  for (const width of LAYOUT_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    for (const theme of THEMES) {
      await page.getByRole('combobox', { name: 'Theme' }).selectOption(theme);
      for (const tab of Object.keys(IDENTIFIERS) as ConsoleTab[]) {
        await consolePage.tab(tab);
        if (tab === 'Audit') {
          await expect(consolePage.audit.callRows().first()).toBeVisible();
          faults.push(...(await layoutFaults(page, checksOf('Audit'))).map((f) => `${width} px ${theme} Audit: ${f}`));
          if (width === 900 && theme === 'light') await page.screenshot({ path: '/tmp/layout-audit-900.png', fullPage: true });
          // With a call's detail open beside the list.
          await consolePage.audit.callRows().filter({ hasText: 'EDENIED' }).first().click();
          await expect(consolePage.audit.detail()).toBeVisible();
          faults.push(...(await layoutFaults(page, checksOf('Audit'))).map((f) => `${width} px ${theme} Audit detail: ${f}`));
          if (width === 900 && theme === 'dark') await page.screenshot({ path: '/tmp/layout-audit-detail-900.png', fullPage: true });
          await consolePage.audit.callScroll().press('Escape');
          continue;
        }
        if (tab === 'Live') await expect(consolePage.live.rows().first()).toBeVisible();
        if (tab === 'Tools') await expect(consolePage.tools.rows().first()).toBeVisible();
        if (tab === 'Permissions') await expect(page.getByTestId('permission-row').first()).toBeVisible();
        faults.push(...(await layoutFaults(page, checksOf(tab))).map((f) => `${width} px ${theme} ${tab}: ${f}`));
        if (width === 900 && theme === 'light' && (tab === 'Live' || tab === 'Approvals')) {
          await page.screenshot({ path: `/tmp/layout-${tab.toLowerCase()}-900.png`, fullPage: true });
        }
      }
    }
  }
  expect(faults).toEqual([]);
});
