import { expect, test } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage';
import { startServedGate, type ServedGate } from './support/servedGate';

// The Settings view: the values the gate runs with, and where each came from.

let gate: ServedGate;

test.afterEach(async () => {
  await gate.stop();
});

test('shows each setting in force and its source: settings.json, a command-line option, or the default', async ({ page }) => {
  gate = await startServedGate(['--pool', '1'], { settings: { approvalTimeoutSeconds: 120, grants: ['net:read:docs.python.org'], pool: 3 } });
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const panel = await consolePage.tab('Settings');
  const row = (key: string) => panel.locator(`tr[data-setting="${key}"]`);

  await expect(panel.getByTestId('settings-file')).toContainText(`Read from ${gate.home}/settings.json`);
  await expect(row('approvalTimeoutSeconds')).toContainText('120');
  await expect(row('approvalTimeoutSeconds')).toHaveAttribute('data-source', 'file');
  await expect(row('grants')).toContainText('net:read:docs.python.org');
  await expect(row('grants')).toHaveAttribute('data-source', 'file');
  // The option given on the command line wins over the file.
  await expect(row('pool')).toContainText('1');
  await expect(row('pool')).toHaveAttribute('data-source', 'flag');
  await expect(row('workspace')).toContainText(gate.workspace);
  await expect(row('sandbox')).toContainText('auto');
  await expect(row('sandbox')).toHaveAttribute('data-source', 'default');
  await expect(row('sandbox').getByRole('cell').last()).toHaveText('default');
});

test("shows the gate's own health: its memory and event-loop lag, read again while shown", async ({ page }) => {
  gate = await startServedGate();
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const panel = await consolePage.tab('Settings');
  const health = panel.getByTestId('gate-health');
  await expect(health.getByTestId('gate-rss')).toContainText(/\d+\.\d MB resident, \d+\.\d MB of it JavaScript heap/);
  await expect(health.getByTestId('gate-lag')).toContainText(/ms typical, .* ms at p99, .* ms at most, over the last \d+ s/);
  // A new window starts at the person's word.
  await panel.getByTestId('gate-health-reset').click();
  await expect(health.getByTestId('gate-lag')).toContainText(/over the last [0-2] s/);
});
