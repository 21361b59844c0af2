import { expect, test, type Locator } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage';
import { ASK_FIRST, ringBell } from './support/askFirst';
import { sessionOf, startServedGate, type ServedGate } from './support/servedGate';

let gate: ServedGate;

test.beforeEach(async () => {
  gate = await startServedGate(['--tools', ASK_FIRST]);
});

test.afterEach(async () => {
  await gate.stop();
});

/** Scrolls the list down a little at a time to its end, as a person reading each card would. */
async function scrollThrough(consolePage: ConsolePage): Promise<void> {
  const list = consolePage.page.getByTestId('approval-list');
  for (;;) {
    const atEnd = await list.evaluate((element) => element.scrollTop + element.clientHeight >= element.scrollHeight - 1);
    if (atEnd) break;
    await consolePage.approvals.scrollListBy(150);
    await consolePage.page.waitForTimeout(120);
  }
  await consolePage.page.waitForTimeout(400);
}

async function labelsOf(cards: Locator): Promise<string[]> {
  return (await cards.getByTestId('approval-arguments').allTextContents()).map((text) => (JSON.parse(text) as { label: string }).label);
}

test('prompts are grouped by agent, oldest first; "Approve all" waits until every card of its group was in view, never covers one that arrived unseen, and approves exactly its group', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  await consolePage.approvals.show();
  const first = await gate.connectAgent();
  const second = await gate.connectAgent();

  const fromFirst = [ringBell(first, 'first-0')];
  await expect(consolePage.approvals.cards()).toHaveCount(1);
  const fromSecond = ringBell(second, 'second-0');
  await expect(consolePage.approvals.cards()).toHaveCount(2);
  fromFirst.push(ringBell(first, 'first-1'));
  await expect(consolePage.approvals.waitingCount()).toHaveText('3 calls are waiting for you.');
  fromFirst.push(ringBell(first, 'first-2'));
  await expect(consolePage.approvals.waitingCount()).toHaveText('4 calls are waiting for you.');

  // Two groups, the agent that has waited longest on top, each oldest first.
  await expect(consolePage.approvals.agentGroups()).toHaveCount(2);
  await expect(consolePage.approvals.agentGroups().first()).toHaveAttribute('data-agent-session', sessionOf(first));
  expect(await labelsOf(consolePage.approvals.cards())).toEqual(['first-0', 'first-1', 'first-2', 'second-0']);
  const approveFirst = consolePage.approvals.approveAllButton(sessionOf(first));
  await expect(approveFirst).toHaveText('Approve all 3');
  // The list shows the first card or two: not every one of the group has been seen.
  // Disabled for a reason of its own: the property, not aria-disabled, which an approving button also carries for a moment after it moves.
  await expect(approveFirst).toHaveJSProperty('disabled', true);
  await expect(consolePage.approvals.agentGroup(sessionOf(first)).getByTestId('agent-seen')).toHaveText(/^[0-2] of 3 seen in full$/);

  await scrollThrough(consolePage);
  await consolePage.approvals.scrollListToTop();
  await expect(approveFirst).toBeEnabled();

  // A prompt that arrives unseen holds the button back: it never approves what nobody looked at.
  await consolePage.approvals.scrollListToTop();
  fromFirst.push(ringBell(first, 'first-3'));
  await expect(approveFirst).toHaveText('Approve all 4');
  await expect(approveFirst).toHaveJSProperty('disabled', true);
  await scrollThrough(consolePage);
  await consolePage.approvals.scrollListToTop();
  await expect(approveFirst).toBeEnabled();
  await approveFirst.click();
  const results = await Promise.all(fromFirst);
  expect(results.map((result) => (result.structuredContent as { rang: string } | undefined)?.rang)).toEqual(['first-0', 'first-1', 'first-2', 'first-3']);
  // The other agent's prompt is left alone, and one arriving afterwards waits for its own answer.
  await expect(consolePage.approvals.cards()).toHaveCount(1);
  const late = ringBell(first, 'first-late');
  await expect(consolePage.approvals.cards()).toHaveCount(2);
  expect(await labelsOf(consolePage.approvals.cards())).toEqual(['second-0', 'first-late']);
  await expect(consolePage.approvals.approveAllButton(sessionOf(first))).toHaveText('Approve all 1');

  // "Deny all from this agent" sits in the group's header too, and leaves the other agent's prompt.
  await consolePage.approvals.denyAllFromAgent(sessionOf(first));
  expect((await late).isError).toBe(true);
  // A lone prompt has no header: its own Deny answers it.
  await expect(consolePage.approvals.agentGroups()).toHaveCount(0);
  await consolePage.approvals.deny('done here');
  expect((await fromSecond).isError).toBe(true);
  await expect(consolePage.approvals.emptyMessage()).toBeVisible();
});

test('"Approve all" stays off for a prompt whose arguments the console only saw cut short, however far it is scrolled', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  await consolePage.approvals.show();
  const agent = await gate.connectAgent();
  const short = ringBell(agent, 'short');
  await expect(consolePage.approvals.cards()).toHaveCount(1);
  // Past 16 KiB the gate sends the console a prefix, a length and a hash, not the whole label.
  const long = ringBell(agent, 'x'.repeat(20_000));
  await expect(consolePage.approvals.cards()).toHaveCount(2);
  await scrollThrough(consolePage);
  const group = consolePage.approvals.agentGroup(sessionOf(agent));
  await expect(group.getByTestId('agent-seen')).toHaveText('1 of 2 seen in full');
  await expect(consolePage.approvals.approveAllButton(sessionOf(agent))).toHaveJSProperty('disabled', true);
  await consolePage.approvals.denyAllFromAgent(sessionOf(agent));
  expect((await short).isError).toBe(true);
  expect((await long).isError).toBe(true);
});

test('"Approve all" waits while one of its prompts is being edited: it would run the call as the agent sent it, not the edit', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  await consolePage.approvals.show();
  const agent = await gate.connectAgent();
  const calls = [ringBell(agent, 'one')];
  await expect(consolePage.approvals.cards()).toHaveCount(1);
  calls.push(ringBell(agent, 'two'));
  await expect(consolePage.approvals.cards()).toHaveCount(2);
  await scrollThrough(consolePage);
  await consolePage.approvals.scrollListToTop();
  const approveAll = consolePage.approvals.approveAllButton(sessionOf(agent));
  await expect(approveAll).toBeEnabled();

  const firstCard = consolePage.approvals.cards().first();
  await firstCard.getByRole('button', { name: 'Edit arguments', exact: true }).click();
  await firstCard.getByLabel('Edited arguments (JSON)').fill('{ "label": "one, edited" }');
  await expect(approveAll).toHaveJSProperty('disabled', true);
  await expect(consolePage.approvals.agentGroup(sessionOf(agent)).getByTestId('agent-seen')).toHaveText('1 prompt is being edited: answer it on its card');
  // The gate's verdict on the edit redraws the card; the close below is clicked on the card as it then stands.
  await expect(firstCard.getByRole('button', { name: 'Approve', exact: true })).toBeEnabled();

  // Closing the editor drops the edit: the group can be approved as it was shown.
  await firstCard.getByRole('button', { name: 'Close the arguments editor' }).click();
  await expect(firstCard.getByLabel('Edited arguments (JSON)')).toHaveCount(0);
  await expect(consolePage.approvals.agentGroup(sessionOf(agent)).getByTestId('agent-seen')).not.toHaveText(/being edited/);
  await scrollThrough(consolePage);
  await consolePage.approvals.scrollListToTop();
  await expect(approveAll).toBeEnabled();
  await approveAll.click();
  const results = await Promise.all(calls);
  expect(results.map((result) => (result.structuredContent as { rang: string } | undefined)?.rang)).toEqual(['one', 'two']);
});
