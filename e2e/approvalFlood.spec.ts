import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect, test } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage';
import { ASK_FIRST } from './support/askFirst';
import { sessionOf, startServedGate, type ServedGate } from './support/servedGate';

const FLOOD = 1_900;
const OTHERS = 100;

let gate: ServedGate;

test.beforeEach(async () => {
  // The caps raised past the flood, so every prompt is shown.
  gate = await startServedGate(['--tools', ASK_FIRST, '--max-pending', '3000', '--max-pending-per-agent', '2000']);
});

test.afterEach(async () => {
  await gate.stop();
});

/** Fires `count` calls that each wait for a person; their results, each settled (a call cut off at the end counts as refused). */
function ringBells(agent: Client, count: number, prefix: string): Array<Promise<CallToolResult | undefined>> {
  return Array.from({ length: count }, (_, n) =>
    (agent.callTool({ name: 'ring_bell', arguments: { label: `${prefix}-${n}` } }, undefined, { timeout: 300_000 }) as Promise<CallToolResult>).catch(
      () => undefined,
    ),
  );
}

test('with 2,000 prompts waiting the Approvals view draws only the cards in view, and "Deny all from this agent" clears only that agent', async ({ page }) => {
  test.setTimeout(300_000);
  const flooder = await gate.connectAgent();
  const other = await gate.connectAgent();
  const flood = ringBells(flooder, FLOOD, 'flood');
  const others = ringBells(other, OTHERS, 'other');

  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  await consolePage.live.show();
  await expect(consolePage.approvals.waitingCount()).toHaveText(`${FLOOD + OTHERS} calls are waiting for you.`);
  await expect(consolePage.tabButton('Approvals')).toHaveAccessibleName(`Approvals ${FLOOD + OTHERS}`);

  // Time to show the list: switching to it draws the first card at once.
  let started = Date.now();
  await consolePage.approvals.show();
  await expect(consolePage.approvals.cards().first()).toBeVisible();
  const renderMs = Date.now() - started;
  // Only the cards in view are in the page, not two thousand.
  expect(await consolePage.approvals.cards().count()).toBeLessThan(40);

  // Time to answer the first prompt: the click is taken and the card goes.
  const firstId = await consolePage.approvals.cards().first().getAttribute('data-approval-id');
  const first = page.locator(`[data-testid="approval-card"][data-approval-id="${firstId}"]`);
  const approvedFlooder = (await first.getByTestId('approval-agent').getAttribute('data-agent-session')) === sessionOf(flooder);
  started = Date.now();
  await consolePage.approvals.approve(first);
  const approveMs = Date.now() - started;
  await expect(consolePage.approvals.waitingCount()).toHaveText(`${FLOOD + OTHERS - 1} calls are waiting for you.`);
  test.info().annotations.push({ type: 'timing', description: `render ${renderMs} ms, approve ${approveMs} ms` });

  // Scrolling far down still draws cards (the list is windowed, not cut).
  await page.getByTestId('approval-list').evaluate((list) => list.scrollTo(0, list.scrollHeight / 2));
  await expect(consolePage.approvals.cards().first()).toBeVisible();

  // Deny every prompt of the flooding agent at once; the other agent's stay.
  const flooderSession = sessionOf(flooder);
  await page.getByTestId('approval-list').evaluate((list) => list.scrollTo(0, 0));
  await expect(consolePage.approvals.cardsFromAgent(flooderSession).first()).toBeVisible();
  await consolePage.approvals.denyAllFromAgent(flooderSession);
  const othersLeft = approvedFlooder ? OTHERS : OTHERS - 1;
  await expect(consolePage.approvals.waitingCount()).toHaveText(`${othersLeft} calls are waiting for you.`);
  await expect(consolePage.approvals.cardsFromAgent(flooderSession)).toHaveCount(0);
  await expect(consolePage.approvals.cardsFromAgent(sessionOf(other)).first()).toBeVisible();

  // The flooding agent reads that a person denied its calls; the other agent still waits.
  const denied = (await Promise.all(flood)).filter((result): result is CallToolResult => result !== undefined);
  const deniedTexts = denied.filter((result) => result.isError).map((result) => (result.content as Array<{ text: string }>)[0]!.text);
  expect(deniedTexts).toHaveLength(approvedFlooder ? FLOOD - 1 : FLOOD);
  expect(deniedTexts.every((text) => text.includes('a person denied it: the person denied every prompt from this agent'))).toBe(true);
  const stillWaiting = await Promise.race([Promise.all(others).then(() => 'settled'), new Promise((resolveWait) => setTimeout(() => resolveWait('waiting'), 500))]);
  expect(stillWaiting).toBe('waiting');

  // The Live list keeps the latest 500 calls of the flood, and draws only the rows in view.
  await consolePage.live.show();
  await expect(consolePage.live.rows().first()).toBeVisible();
  expect(await consolePage.live.rows().count()).toBeLessThan(80);
  await page.getByTestId('call-list').evaluate((list) => list.scrollTo(0, list.scrollHeight));
  await expect(consolePage.live.rows().last()).toBeVisible();
});
