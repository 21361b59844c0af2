import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage';
import { sessionOf, startServedGate, type ServedGate } from './support/servedGate';

// Notifications: a prompt that arrives while the console's tab is hidden shows a browser
// notification naming the tool and the agent, never the arguments; clicking it opens that prompt.
// The browser's permission is asked only when the person turns "Notify me" on. The page's
// visibility and the Notification API are stood in for (a headless browser has neither).

let gate: ServedGate;
const STAND_IN = fileURLToPath(new URL('./support/notificationStandIn.js', import.meta.url));

test.beforeEach(async ({ page }) => {
  await page.addInitScript({ path: STAND_IN });
  gate = await startServedGate();
});

test.afterEach(async () => {
  await gate.stop();
});

interface Shown {
  title: string;
  body: string;
  tag: string;
  closed: boolean;
}

function shownNotifications(page: Page): Promise<Shown[]> {
  return page.evaluate('window.notificationStandIn.shown()');
}

function permissionRequests(page: Page): Promise<number> {
  return page.evaluate('window.notificationStandIn.permissionRequests()');
}

async function setHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate(`window.notificationStandIn.setHidden(${hidden})`);
}

const SECRET_LOOKING = 'launch-codes-7731';

test('a prompt arriving while the tab is hidden is notified by tool and agent only; clicking it opens the prompt; a visible tab gets none', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();

  // Off until the person turns it on: loading the console asked for nothing and notifies nothing.
  await setHidden(page, true);
  const unnoticed = agent.callTool({ name: 'write_file', arguments: { path: 'a.md', content: 'a' } });
  await expect.poll(() => consolePage.pendingApprovals()).toBe(1);
  expect(await shownNotifications(page)).toEqual([]);
  expect(await permissionRequests(page)).toBe(0);
  await setHidden(page, false);
  await consolePage.approvals.deny('not this one');
  await unnoticed;

  // The person's click asks the browser's permission, once.
  await consolePage.approvals.show();
  await consolePage.approvals.notifyToggle().check();
  await expect(consolePage.approvals.notifyToggle()).toBeChecked();
  expect(await permissionRequests(page)).toBe(1);

  await consolePage.live.show();
  await setHidden(page, true);
  const asked = agent.callTool({ name: 'write_file', arguments: { path: `plans/${SECRET_LOOKING}.md`, content: `${SECRET_LOOKING}\n` } });
  await expect.poll(async () => (await shownNotifications(page)).length).toBe(1);
  const [notification] = await shownNotifications(page);
  expect(notification!.title).toContain('write_file');
  expect(notification!.body).toContain('e2e-agent 1.0.0');
  expect(`${notification!.title} ${notification!.body}`).not.toContain(SECRET_LOOKING);
  expect(`${notification!.title} ${notification!.body}`).not.toContain('plans');

  // Clicking it opens that prompt.
  await setHidden(page, false);
  await page.evaluate('window.notificationStandIn.click(0)');
  await expect(consolePage.selectedTab()).toHaveText(/^Approvals/);
  const card = consolePage.approvals.openedCard();
  await expect(card).toHaveAttribute('data-approval-id', notification!.tag);
  await expect(page.locator('[data-opened="true"]')).toBeFocused();
  await consolePage.approvals.approve(card);
  expect((await asked).isError).toBe(false);

  // With the tab in sight, a prompt is seen, not notified.
  const seen = agent.callTool({ name: 'write_file', arguments: { path: 'b.md', content: 'b' } });
  const seenCard = await consolePage.approvals.waitForPrompt('write_file');
  await page.waitForTimeout(300);
  expect(await shownNotifications(page)).toHaveLength(1);
  await consolePage.approvals.approve(seenCard);
  await seen;
});

/** Opens the console, connects an agent, and turns "Notify me" on, as the person would. */
async function withNotifyOn(page: Page) {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  await consolePage.approvals.show();
  await consolePage.approvals.notifyToggle().check();
  await expect(consolePage.approvals.notifyToggle()).toBeChecked();
  return { consolePage, agent };
}

test("a prompt's notification goes away once it is answered", async ({ page }) => {
  const { consolePage, agent } = await withNotifyOn(page);
  await setHidden(page, true);
  const asked = agent.callTool({ name: 'write_file', arguments: { path: 'c.md', content: 'c' } });
  // The notification is shown on the prompt's own event, before the console lists the prompt.
  await expect.poll(() => consolePage.pendingApprovals()).toBe(1);
  expect(await shownNotifications(page)).toHaveLength(1);
  await setHidden(page, false);
  await consolePage.approvals.deny('answered in the console');
  await asked;
  await expect.poll(async () => (await shownNotifications(page))[0]!.closed).toBe(true);
});

test('a console that opens out of sight tells of the prompt already waiting, once, and takes it away when answered', async ({ page }) => {
  const { consolePage, agent } = await withNotifyOn(page);

  // Asked while the console was in sight: seen there, not notified.
  const asked = agent.callTool({ name: 'write_file', arguments: { path: 'd.md', content: 'd' } });
  await consolePage.approvals.waitForPrompt('write_file');
  expect(await shownNotifications(page)).toEqual([]);

  // The tab goes to the background and reloads there (as a restored browser's tabs do): the prompt
  // reaches this console only in the list of pending ones, with no event of its own.
  await setHidden(page, true);
  await page.reload();
  await expect.poll(async () => (await shownNotifications(page)).length).toBe(1);
  const [notification] = await shownNotifications(page);
  expect(notification!.title).toContain('write_file');
  expect(`${notification!.title} ${notification!.body}`).not.toContain('d.md');

  await setHidden(page, false);
  await consolePage.approvals.deny('answered after the reload');
  expect((await asked).isError).toBe(true);
  await expect.poll(async () => (await shownNotifications(page))[0]!.closed).toBe(true);
});

test('a flood of prompts out of sight is three notifications and one for the rest, which opens the oldest of the rest and goes once they are answered', async ({ page }) => {
  const { consolePage, agent } = await withNotifyOn(page);
  await consolePage.live.show();
  await setHidden(page, true);
  const asked = Array.from({ length: 6 }, (_, n) => agent.callTool({ name: 'write_file', arguments: { path: `flood-${n}.md`, content: 'f' } }));
  await expect.poll(() => consolePage.pendingApprovals()).toBe(6);
  const shown = await shownNotifications(page);
  expect(shown.map((notification) => notification.title)).toEqual([...Array(3).fill('write_file is waiting for your approval'), 'More prompts are waiting for your approval']);
  expect(shown[3]!.body).not.toContain('flood');

  // Its click opens a prompt that had no notification of its own.
  await setHidden(page, false);
  await page.evaluate('window.notificationStandIn.click(3)');
  await expect(consolePage.selectedTab()).toHaveText(/^Approvals/);
  const opened = consolePage.approvals.openedCard();
  await expect(opened).toHaveCount(1);
  expect(shown.slice(0, 3).map((notification) => notification.tag)).not.toContain(await opened.getAttribute('data-approval-id'));
  expect((await shownNotifications(page))[3]!.closed).toBe(true);

  await consolePage.approvals.denyAllFromAgent(sessionOf(agent));
  for (const call of asked) expect((await call).isError).toBe(true);
  await expect.poll(async () => (await shownNotifications(page)).every((notification) => notification.closed)).toBe(true);
});
