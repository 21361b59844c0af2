import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage';
import { LAYOUT_WIDTHS, layoutFaults, THEMES, type LayoutChecks } from './support/layoutFaults';
import { startServedGate, type ServedGate } from './support/servedGate';

// The Tools view with an MCP server whose tool and argument names are as long as some servers make
// them (one longer than the gate takes, listed as refused): its cards and the tools table lay out at
// 900 and 1400 px, in both themes, with no sideways page scroll and no name broken mid-word.

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const FIXTURE = join(ROOT, 'test/fixtures/upstreamServer.mjs');
// A checkout or a Node under /tmp is hidden in the server's sandbox unless named readable.
const READABLE = [ROOT, dirname(dirname(process.execPath))];
const SERVER = 'vendor_repository_tools';
/** Trusted: it shows in the tools table too, with its tier. */
const TRUSTED = `${SERVER}__very_long_tool_name_that_goes_on_and_on_for_a_while_to_wrap`;
/** Left unreviewed: its card keeps the review form. */
const UNREVIEWED = `${SERVER}__createOrUpdateBranchProtectionRulesForEveryDefaultBranch`;

const CHECKS: LayoutChecks = {
  identifiers: [
    '[data-testid="tool-row"] .tool-name',
    '[data-testid="tool-row"] [data-testid="tier-badge"]',
    '[data-testid="upstream-server"] h3',
    '[data-testid="upstream-status"]',
    '[data-testid="upstream-tool"] .tool-name',
    '[data-testid="upstream-tool"] [data-testid="tier-badge"]',
    '[data-testid="pin-badge"]',
    '[data-testid="refused-tool"] code',
    // An argument's name and type: the cells, since a one-letter name is narrower than any column.
    '[data-testid="upstream-argument"] > td:first-child',
    '[data-testid="upstream-argument"] > td:nth-child(2)',
  ],
  phrases: [
    '[data-testid="tool-row"] > td:not(.tool-identity)',
    '[data-testid="upstream-tool-description"]',
    '[data-testid="upstream-argument"] > td:last-child',
    '[data-testid="upstream-launch"]',
    '[data-testid="upstream-review"]',
  ],
};

let gate: ServedGate;

test.beforeEach(async () => {
  gate = await startServedGate([], {
    servers: () => ({ mcpServers: { [SERVER]: { command: process.execPath, args: [FIXTURE, 'long-names'], sandbox: { readable: READABLE } } } }),
  });
});

test.afterEach(async () => {
  await gate.stop();
});

test("the Tools view lays out a server's long tool names at 900 and 1400 px, in both themes", async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1400, height: 900 });
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const { tools } = consolePage;
  await tools.approveLaunch(SERVER);
  await tools.waitForServerStatus(SERVER, 'ready');
  await tools.trustTool(TRUSTED);
  await expect(tools.rowFor(TRUSTED)).toBeVisible();
  await expect(tools.pinBadge(UNREVIEWED)).toHaveText('unreviewed: not offered to agents until trusted');
  await expect(tools.upstreamServer(SERVER).getByTestId('refused-tool')).toContainText('very_long_tool_name_that_goes_on_and_on_for_a_while_to_test_wrapping');

  const faults: string[] = [];
  for (const width of LAYOUT_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    for (const theme of THEMES) {
      await page.getByRole('combobox', { name: 'Theme' }).selectOption(theme);
      await tools.show();
      await expect(tools.upstreamTool(UNREVIEWED)).toBeVisible();
      faults.push(...(await layoutFaults(page, CHECKS)).map((fault) => `${width} px ${theme}: ${fault}`));
    }
  }
  expect(faults).toEqual([]);
});
