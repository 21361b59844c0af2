import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage';
import { startServedGate, type ServedGate } from './support/servedGate';

/** The keys do nothing for this long after a prompt is selected, as the console promises. */
const KEY_GUARD_MS = 350;
/** A little longer than the keys' guard. */
const PAST_GUARD_MS = KEY_GUARD_MS + 100;
/** A frame of the page's clock: the console draws what the gate sent once a frame. */
const FRAME_MS = 16;
const WAIT_MS = 60_000;

let gate: ServedGate;

test.beforeEach(async () => {
  gate = await startServedGate();
});

test.afterEach(async () => {
  await gate.stop();
});

test('A approves, but not in the first 350 ms of a prompt; D denies with the reason typed, and typing a or d in the reason is only text', async ({ page }) => {
  // The page's clock is the test's: the guard is judged on it, so a busy machine cannot stretch it.
  await page.clock.install();
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  await consolePage.approvals.show();
  const agent = await gate.connectAgent();

  // From here the page's time moves only when the test moves it, a frame at a time until the
  // prompt is drawn; the page notes the time on its clock when it was, so the keys below are
  // pressed at chosen times after it, however long this machine takes between the steps.
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1_000);
  await page.evaluate(`window.promptShownAt = new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (!document.querySelector('[data-testid="approval-card"]')) return;
      observer.disconnect();
      resolve(performance.now());
    });
    observer.observe(document.body, { childList: true, subtree: true });
  }); undefined`);
  const first = agent.callTool({ name: 'write_file', arguments: { path: 'a.txt', content: 'a\n' } });
  const card = consolePage.approvals.cards().first();
  await expect(async () => {
    await page.clock.runFor(FRAME_MS);
    await expect(card).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: WAIT_MS });
  const shownAt = (await page.evaluate('window.promptShownAt')) as number;
  const sinceShown = async (): Promise<number> => (await page.evaluate(() => performance.now())) - shownAt;
  expect(await sinceShown()).toBeLessThan(KEY_GUARD_MS);
  await page.keyboard.press('a');
  // The key came within the guard, and did nothing: the prompt waits, nothing was written.
  await page.waitForTimeout(PAST_GUARD_MS);
  await expect(card).toHaveCount(1);
  expect(existsSync(join(gate.workspace, 'a.txt'))).toBe(false);
  // A millisecond before the guard's end, still nothing; at its end, the same key approves it.
  await page.clock.runFor(KEY_GUARD_MS - 1 - (await sinceShown()));
  await page.keyboard.press('a');
  await page.waitForTimeout(PAST_GUARD_MS);
  await expect(card).toHaveCount(1);
  expect(existsSync(join(gate.workspace, 'a.txt'))).toBe(false);
  await page.clock.runFor(1);
  await page.keyboard.press('a');
  await expect(async () => {
    await page.clock.runFor(FRAME_MS);
    await expect(card).toHaveCount(0, { timeout: 100 });
  }).toPass({ timeout: WAIT_MS });
  await page.clock.resume();
  expect((await first).isError).toBe(false);
  expect(readFileSync(join(gate.workspace, 'a.txt'), 'utf8')).toBe('a\n');

  const second = agent.callTool({ name: 'write_file', arguments: { path: 'b.txt', content: 'b\n' } });
  const next = await consolePage.approvals.waitForPrompt('write_file');
  await page.waitForTimeout(PAST_GUARD_MS);
  // R goes to the reason; what is typed there is text, not answers.
  await page.keyboard.press('r');
  const reason = await consolePage.approvals.reasonBox(next);
  await expect(reason).toBeFocused();
  await page.keyboard.type('a bad idea, do not');
  await expect(reason).toHaveValue('a bad idea, do not');
  await page.waitForTimeout(PAST_GUARD_MS);
  await expect(next).toHaveCount(1);
  // Esc leaves the field; then D denies, and the agent reads the reason.
  await page.keyboard.press('Escape');
  await expect(reason).not.toBeFocused();
  await page.keyboard.press('d');
  await expect(next).toHaveCount(0);
  const denied = await second;
  expect(denied.isError).toBe(true);
  expect(JSON.stringify(denied.content)).toContain('a bad idea, do not');
  expect(existsSync(join(gate.workspace, 'b.txt'))).toBe(false);
});

test('J and K move between prompts and the keys answer the selected one; keys do nothing on another tab', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  const first = agent.callTool({ name: 'write_file', arguments: { path: 'one.txt', content: '1\n' } });
  const firstCard = await consolePage.approvals.waitForPrompt('write_file');
  const second = agent.callTool({ name: 'write_file', arguments: { path: 'two.txt', content: '2\n' } });
  await expect(consolePage.approvals.cards()).toHaveCount(2);
  const secondCard = consolePage.approvals.cards().nth(1);

  // The oldest is selected first; J selects the next (it takes the focus, for screen readers too).
  await expect(consolePage.approvals.selectedCard()).toHaveAttribute('data-approval-id', (await firstCard.getAttribute('data-approval-id'))!);
  await page.keyboard.press('j');
  await expect(consolePage.approvals.selectedCard()).toHaveAttribute('data-approval-id', (await secondCard.getAttribute('data-approval-id'))!);
  await expect(page.locator('[aria-current="true"]')).toBeFocused();
  await expect(page.getByTestId('approval-selected')).toHaveText('Selected: write_file, prompt 2.');

  // On another tab the keys are not the Approvals view's.
  await consolePage.tab('Live');
  await page.waitForTimeout(PAST_GUARD_MS);
  await page.keyboard.press('d');
  await consolePage.approvals.show();
  await expect(consolePage.approvals.cards()).toHaveCount(2);

  // D denies the selected (second) prompt, not the first.
  await page.keyboard.press('d');
  await expect(consolePage.approvals.cards()).toHaveCount(1);
  expect((await second).isError).toBe(true);
  await expect(firstCard).toHaveCount(1);
  // K goes back up (there is only one left); ArrowDown stays on it; A approves it.
  await page.keyboard.press('k');
  await page.keyboard.press('ArrowDown');
  await page.waitForTimeout(PAST_GUARD_MS);
  await page.keyboard.press('a');
  await expect(firstCard).toHaveCount(0);
  expect((await first).isError).toBe(false);
});

test('a held A approves one prompt, not the ones after it', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  await consolePage.approvals.show();
  const calls = [];
  for (const path of ['h1.txt', 'h2.txt']) {
    calls.push(agent.callTool({ name: 'write_file', arguments: { path, content: 'h\n' } }));
    await expect(consolePage.approvals.cards()).toHaveCount(calls.length);
  }
  await page.waitForTimeout(PAST_GUARD_MS);
  // The first press approves; the key repeats while held, well past the next prompt's guard.
  await page.keyboard.down('a');
  for (let repeat = 0; repeat < 8; repeat++) {
    await page.waitForTimeout(100);
    await page.keyboard.down('a');
  }
  await page.keyboard.up('a');
  await expect(consolePage.approvals.cards()).toHaveCount(1);
  expect((await calls[0]!).isError).toBe(false);
  expect(existsSync(join(gate.workspace, 'h2.txt'))).toBe(false);
  await consolePage.approvals.deny('not this one');
  expect((await calls[1]!).isError).toBe(true);
});

test('Shift+A opens "Always allow…" while a plain A approves once and remembers nothing; S and T open the other lasting choices; ? lists the keys', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  const write = () => agent.callTool({ name: 'write_file', arguments: { path: 'c.txt', content: 'c\n' } });

  // Plain A: approved once; the same call asks again.
  const once = write();
  const card = await consolePage.approvals.waitForPrompt('write_file');
  await page.waitForTimeout(PAST_GUARD_MS);
  await page.keyboard.press('a');
  await expect(card).toHaveCount(0);
  expect((await once).isError).toBe(false);
  expect(existsSync(join(gate.home, 'policy.json'))).toBe(false);

  const again = write();
  const asked = await consolePage.approvals.waitForPrompt('write_file');
  await page.waitForTimeout(PAST_GUARD_MS);
  const always = asked.getByRole('button', { name: 'Always allow in the user policy', exact: true });
  await expect(always).toHaveCount(0);
  await page.keyboard.press('Shift+A');
  await expect(always).toBeVisible();
  await expect(asked.getByRole('button', { name: 'Always allow…', exact: true })).toHaveAttribute('aria-expanded', 'true');
  // Opening a choice decides nothing.
  await expect(asked).toHaveCount(1);
  await page.keyboard.press('t');
  await expect(asked.getByRole('button', { name: 'Allow for 15 min', exact: true })).toBeVisible();
  await page.keyboard.press('s');
  await expect(consolePage.approvals.ruleEditor(asked)).toHaveAttribute('data-scope', 'session');

  await page.keyboard.press('?');
  const help = consolePage.approvals.keyHelp();
  await expect(help).toContainText('Shift+A');
  await expect(help).toContainText('Always allow');
  await page.keyboard.press('Escape');
  await expect(help).toHaveCount(0);
  await page.getByRole('button', { name: 'Keyboard shortcuts (?)' }).click();
  await expect(help).toBeVisible();
  await help.getByRole('button', { name: 'Close' }).click();
  await expect(help).toHaveCount(0);

  await consolePage.approvals.deny('enough', asked);
  expect((await again).isError).toBe(true);
});
