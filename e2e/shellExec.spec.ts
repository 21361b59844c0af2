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
  await expect(terminal).toContainText('red 1');
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

test('a command still waiting for approval shows in Live without a terminal or a Stop button; they come once it runs', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  const running = agent.callTool({ name: 'shell_exec', arguments: { command: 'sleep 2; echo done' } });
  const card = await consolePage.approvals.waitForPrompt('shell_exec');
  await consolePage.live.show();
  await expect(consolePage.live.rowFor('shell_exec')).toHaveAttribute('data-status', 'awaiting-approval');
  await expect(page.getByTestId('call-output-row')).toHaveCount(0);
  await expect(page.getByTestId('stop-call')).toHaveCount(0);
  await consolePage.tab('Approvals');
  await consolePage.approvals.approve(card);
  await consolePage.live.show();
  await expect(page.getByTestId('stop-call')).toHaveCount(1);
  expect((await running).isError).toBe(false);
});

// Output that tries to hide what came before it: a line overwritten by a carriage return, then a
// screen clear, a scrollback clear, a cursor move home and up, a line erase, a window title and a
// clipboard write, and a concealed line.
const REWRITING =
  "printf 'first line\\n'; printf 'rm -rf ~\\r'; printf 'echo hello\\n'; " +
  "printf '\\033[2J\\033[3J\\033[H\\033[1A\\033[2K\\033]0;owned\\007\\033]52;c;cm0gLXJmIH4=\\007'; " +
  "printf '\\033[8mconcealed\\033[0m\\n'; printf '\\033[32mgreen after\\033[0m\\n'";

test('output that clears the screen, moves the cursor or overwrites a line cannot hide earlier lines', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  const running = agent.callTool({ name: 'shell_exec', arguments: { command: REWRITING } });
  await consolePage.approvals.approve(await consolePage.approvals.waitForPrompt('shell_exec'));
  expect((await running).isError).toBe(false);

  await consolePage.live.show();
  const terminal = await consolePage.live.terminalFor('shell_exec');
  await expect(terminal).toContainText('green after');
  // Each line the command printed is on a row of its own, in order, none drawn over.
  const rows = (await consolePage.live.terminalRows(terminal)).filter((row) => row.trim() !== '');
  expect(rows).toEqual(['first line', 'rm -rf ~', 'echo hello', 'concealed', 'green after']);
  // Colours still reach the terminal; the concealed line is drawn like any other.
  const colour = await terminal.getByText('green after').evaluate((span) => span.ownerDocument.defaultView!.getComputedStyle(span).color);
  const [red, green, blue] = colour.match(/\d+/g)!.map(Number);
  expect(green).toBeGreaterThan(Math.max(red!, blue!));
  await expect(terminal.getByText('concealed')).toBeVisible();

  // The gate keeps serving.
  const after = await agent.callTool({ name: 'echo', arguments: { text: 'still serving' } });
  expect(JSON.stringify(after.content)).toContain('still serving');
});

test('Stop kills a running command; the agent is told it was stopped', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();

  const running = agent.callTool({ name: 'shell_exec', arguments: { command: 'echo started; sleep 20; touch finished.txt' } });
  await consolePage.approvals.approve(await consolePage.approvals.waitForPrompt('shell_exec'));
  await consolePage.live.show();
  await expect(await consolePage.live.terminalFor('shell_exec')).toContainText('started');

  await consolePage.live.stop('shell_exec');
  // Stopped, not finished: the call fails as withdrawn, and the line after its 20 s sleep never ran.
  const result = await running;
  expect(result.isError).toBe(true);
  expect(JSON.stringify(result.content)).toContain('EDENIED');
  await consolePage.live.waitForStatus('shell_exec', 'failed');
  expect(existsSync(join(gate.workspace, 'finished.txt'))).toBe(false);
});
