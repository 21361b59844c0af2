import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { ConsolePage, type ConsoleTab } from './pages/ConsolePage';
import { startServedGate, type ServedGate } from './support/servedGate';

const FIXTURE = fileURLToPath(new URL('../test/fixtures/tools/unhealthy.mjs', import.meta.url));

let gate: ServedGate;

test.beforeEach(async () => {
  gate = await startServedGate(['--tools', FIXTURE]);
});

test.afterEach(async () => {
  await gate.stop();
});

test('the Tools tab shows a tool whose health check fails as unavailable with its message, and its calls are refused plainly', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);

  const broken = await consolePage.tools.waitForHealth('licensed_lookup', 'unhealthy');
  await expect(broken).toHaveAttribute('data-available', 'false');
  await expect(consolePage.tools.healthState('licensed_lookup')).toHaveText('unavailable');
  await expect(consolePage.tools.healthMessage('licensed_lookup')).toHaveText('the license server is unreachable');
  await expect(broken).toContainText('NetRead');
  await expect(consolePage.tabButton('Tools')).toHaveAccessibleName('Tools 1');

  const fine = await consolePage.tools.waitForHealth('clock_now', 'healthy');
  await expect(fine).toHaveAttribute('data-available', 'true');
  await expect(consolePage.tools.healthState('clock_now')).toHaveText('healthy');
  await expect(consolePage.tools.healthMessage('clock_now')).toHaveCount(0);
  await expect(fine).toContainText(/timeout\s*30 s/);
  // The built-ins are listed next to the module's tools.
  await expect(consolePage.tools.rowFor('write_file')).toBeVisible();

  // An agent calling the unavailable tool gets the reason at once, not a hang.
  const agent = await gate.connectAgent();
  const refused = await agent.callTool({ name: 'licensed_lookup', arguments: { key: 'k1' } }, undefined, { timeout: 15_000 });
  expect(refused.isError).toBe(true);
  expect(JSON.stringify(refused.content)).toContain('the license server is unreachable');
  const answered = await agent.callTool({ name: 'clock_now', arguments: {} }, undefined, { timeout: 15_000 });
  expect(answered.isError).toBe(false);
});

test('with bubblewrap the console names the sandbox and shows no warning', async ({ page }) => {
  // CI installs bubblewrap: the default gate there runs every tool process inside it.
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  await expect(consolePage.sandboxKind()).toHaveText('bubblewrap');
  for (const tab of ['Live', 'Approvals', 'Audit', 'Tools', 'Settings'] satisfies ConsoleTab[]) {
    await consolePage.tab(tab);
    await expect(consolePage.sandboxBanner()).toHaveCount(0);
  }
});

test('without a sandbox the console says so on every tab, and tools that touch files are judged a tier higher', async ({ page }) => {
  const bare = await startServedGate(['--sandbox', 'off']);
  try {
    const consolePage = new ConsolePage(page);
    await consolePage.open(bare.consoleUrl);
    await expect(consolePage.sandboxKind()).toHaveText('none');
    for (const tab of ['Live', 'Approvals', 'Audit', 'Tools', 'Settings'] satisfies ConsoleTab[]) {
      await consolePage.tab(tab);
      await expect(consolePage.sandboxBanner()).toContainText('No OS sandbox: tools run without bubblewrap on this machine');
      await expect(consolePage.sandboxBanner()).toContainText('The sandbox was turned off (--sandbox off)');
    }
    await consolePage.tools.show();
    await expect(consolePage.tools.tierRaised('write_file')).toContainText('Raised from ELEVATED');
    // read_file reads files: STANDARD runs without asking in a sandbox, but asks a person without one.
    await expect(consolePage.tools.tierRaised('read_file')).toContainText('Raised from STANDARD');
  } finally {
    await bare.stop();
  }
});
