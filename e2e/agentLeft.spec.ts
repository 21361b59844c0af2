import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage';
import { startServedGate, type ServedGate } from './support/servedGate';

let gate: ServedGate;

test.beforeEach(async () => {
  gate = await startServedGate();
});

test.afterEach(async () => {
  await gate.stop();
});

test('an agent that leaves while its prompt waits: the card goes, the console says the agent left, and Live shows the call withdrawn', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  void agent.callTool({ name: 'write_file', arguments: { path: 'left.txt', content: 'nobody waits for this\n' } }).catch(() => {});
  const card = await consolePage.approvals.waitForPrompt('write_file');
  await expect(card).toBeVisible();

  // The agent's process goes away without cancelling: its connection closes.
  await agent.close();
  await expect(card).toHaveCount(0);
  await expect(consolePage.approvals.leftPrompts()).toHaveCount(1);
  await expect(consolePage.approvals.leftPrompts().first()).toContainText('write_file was withdrawn, the agent left: ');
  await expect(consolePage.approvals.leftPrompts().first()).toContainText('can no longer be approved');

  await consolePage.live.show();
  const row = consolePage.live.rows().filter({ hasText: 'write_file' });
  await expect(row).toHaveAttribute('data-status', 'rejected');
  await expect(row.getByTestId('decided-by')).toContainText('withdrawn: the agent left: ');
  expect(existsSync(join(gate.workspace, 'left.txt'))).toBe(false);
});
