import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

test('a recursive delete approved in the console after a same-size change in its tree is refused, and nothing is deleted', async ({ page }) => {
  mkdirSync(join(gate.workspace, 'cache/sub'), { recursive: true });
  writeFileSync(join(gate.workspace, 'cache/sub/config.txt'), 'mode=safe\n');
  execFileSync('mkfifo', [join(gate.workspace, 'cache/pipe')]);
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();

  const deleting = agent.callTool({ name: 'delete_path', arguments: { path: 'cache', recursive: true } });
  const card = await consolePage.approvals.waitForPrompt('delete_path');
  const entries = card.getByTestId('delete-entries');
  await expect(entries).toContainText('cache/sub/config.txt');
  // The FIFO is shown by its kind (and was never opened to show it).
  await expect(entries.locator('li[data-type="other"]')).toContainText('fifo');
  await expect(card.getByTestId('delete-binding')).toContainText('even a file of the same size');

  // After the person looked, the agent swaps the content for other bytes of the same length.
  writeFileSync(join(gate.workspace, 'cache/sub/config.txt'), 'mode=evil\n');
  await consolePage.approvals.approve(card);
  const result = await deleting;
  expect(result.isError).toBe(true);
  expect(JSON.stringify(result.content)).toContain('no longer what was approved');
  expect(readFileSync(join(gate.workspace, 'cache/sub/config.txt'), 'utf8')).toBe('mode=evil\n');
  expect(existsSync(join(gate.workspace, 'cache/pipe'))).toBe(true);
});
