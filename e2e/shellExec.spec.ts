import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage';
import { startServedGate, type ServedGate } from './support/servedGate';

// shell_exec in the console: the person approves the parsed command, its terminal output streams
// into the Live view while it runs (colours kept), and Stop kills it.

let gate: ServedGate;

test.beforeEach(async () => {
  gate = await startServedGate();
});

test.afterEach(async () => {
  await gate.stop();
});

const COLOURED = "for i in 1 2 3; do printf '\\e[31mred %s\\e[0m\\n' $i; sleep 1; done";

test('an approved command streams its coloured lines into the Live terminal before it ends', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();

  const running = agent.callTool({ name: 'shell_exec', arguments: { command: COLOURED } });
  const card = await consolePage.approvals.waitForPrompt('shell_exec');
  // The prompt shows the command as the shell grammar read it.
  await expect(card.getByTestId('sub-commands')).toContainText('printf');
  await expect(card.getByTestId('sub-commands')).toContainText('sleep');
  await consolePage.approvals.approve(card);

  await consolePage.live.show();
  const terminal = await consolePage.live.terminalFor('shell_exec');
  await expect(terminal).toContainText('red 1', { timeout: 5_000 });
  // The first line is there while the command still runs, drawn in red.
  await expect(consolePage.live.rowFor('shell_exec')).toHaveAttribute('data-status', 'running');
  await expect(terminal.locator('.xterm-fg-1').first()).toContainText('red 1');

  const result = await running;
  expect(result.isError).toBe(false);
  expect(result.structuredContent).toMatchObject({ exitCode: 0, timedOut: false, stdout: 'red 1\nred 2\nred 3\n' });
  await expect(terminal).toContainText('red 3');
  await consolePage.live.waitForStatus('shell_exec', 'completed');
  await expect(page.getByTestId('stop-call')).toHaveCount(0);
});

test('Stop kills a running command; the agent is told it was stopped', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();

  const running = agent.callTool({ name: 'shell_exec', arguments: { command: 'echo started; sleep 20; touch finished.txt' } });
  await consolePage.approvals.approve(await consolePage.approvals.waitForPrompt('shell_exec'));
  await consolePage.live.show();
  await expect(await consolePage.live.terminalFor('shell_exec')).toContainText('started', { timeout: 5_000 });

  const stoppedAt = Date.now();
  await consolePage.live.stop('shell_exec');
  const result = await running;
  expect(Date.now() - stoppedAt).toBeLessThan(5_000);
  expect(result.isError).toBe(true);
  expect(JSON.stringify(result.content)).toContain('EDENIED');
  await consolePage.live.waitForStatus('shell_exec', 'failed');
  expect(existsSync(join(gate.workspace, 'finished.txt'))).toBe(false);
});
