import { expect, test, type Page } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage';
import { ASK_FIRST, ringBell } from './support/askFirst';
import { startServedGate, type ServedGate } from './support/servedGate';

// An approving button takes no pointer click for a moment after it appears or moves on the screen
// (renderer/views/approvals/ApproveButton.tsx): a card that shows up, or is pushed, under a pointer
// about to click something else is not approved by that click. Each click here is sent by the page
// itself in the same task as the change that drew or moved the button, so no wait decides the outcome.

let gate: ServedGate;

test.beforeEach(async () => {
  gate = await startServedGate(['--tools', ASK_FIRST]);
});

test.afterEach(async () => {
  await gate.stop();
});

/** The note shown while a pointer's click was just held back. */
const HELD_BACK_NOTE = 'Not approved: that button had just appeared or moved when you clicked. Click it again if you meant it.';

/** Whether the call is still waiting for its answer. */
async function stillWaiting(call: Promise<unknown>): Promise<boolean> {
  const waiting = Symbol('waiting');
  return (await Promise.race([call.then(() => undefined), Promise.resolve(waiting)])) === waiting;
}

/**
 * In-page helpers: `approveOf(label)`, the Approve of the card whose arguments hold `label`; and
 * `pointerClick(label)`, a pointer's click (it has a click count) on it, false when there is none.
 */
const IN_PAGE = `
  const approveOf = (label) => {
    const card = [...document.querySelectorAll('[data-testid="approval-card"]')].find((each) => each.textContent.includes(label));
    return card && [...card.querySelectorAll('button')].find((button) => button.textContent.trim() === 'Approve');
  };
  const pointerClick = (label) => {
    const approve = approveOf(label);
    approve?.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, detail: 1 }));
    return approve !== undefined;
  };`;

/** The console open on Approvals, and an agent connected. */
async function openWithAgent(page: Page) {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  await consolePage.approvals.show();
  return { consolePage, agent: await gate.connectAgent() };
}

test('a card that has just appeared takes no pointer click on Approve; once it has stood still a moment, a click approves', async ({ page }) => {
  const { consolePage, agent } = await openWithAgent(page);

  // The page clicks Approve the moment the card is drawn, as a click meant for the empty list would land.
  await page.evaluate(`window.clickedAsDrawn = new Promise((resolve) => {${IN_PAGE}
    const observer = new MutationObserver(() => {
      if (!pointerClick('drawn-under-pointer')) return;
      observer.disconnect();
      const approve = approveOf('drawn-under-pointer');
      resolve({ ariaDisabled: approve.getAttribute('aria-disabled'), title: approve.getAttribute('title') });
    });
    observer.observe(document.body, { childList: true, subtree: true });
  }); undefined`);
  const call = ringBell(agent, 'drawn-under-pointer');
  const card = consolePage.approvals.cards().first();
  // It was held when clicked, and said so.
  expect(await page.evaluate('window.clickedAsDrawn')).toEqual({ ariaDisabled: 'true', title: 'This prompt just appeared or moved: it takes a click in a moment' });
  const approve = card.getByRole('button', { name: 'Approve', exact: true });
  // The person is told why nothing happened, and what to do.
  await expect(page.getByTestId('held-back-note')).toHaveText(HELD_BACK_NOTE);
  // The hold ends by itself; the click it took did nothing: the call still waits.
  await expect(approve).toBeEnabled();
  await expect(approve).not.toHaveAttribute('aria-disabled');
  expect(await stillWaiting(call)).toBe(true);
  await expect(card).toHaveCount(1);

  // A click now approves.
  await approve.click();
  await expect(card).toHaveCount(0);
  expect((await call).structuredContent).toEqual({ rang: 'drawn-under-pointer' });
});

test('an agent that withdraws its prompt cannot slide the next one under a click meant for it: the card pushed up is held, then approves', async ({ page }) => {
  const { consolePage, agent } = await openWithAgent(page);
  const withdraw = new AbortController();
  const first = ringBell(agent, 'withdrawn', { signal: withdraw.signal });
  first.catch(() => {});
  await expect(consolePage.approvals.cards()).toHaveCount(1);
  const second = ringBell(agent, 'pushed-up');
  await expect(consolePage.approvals.cards()).toHaveCount(2);
  const secondApprove = consolePage.approvals.cards().filter({ hasText: 'pushed-up' }).getByRole('button', { name: 'Approve', exact: true });
  // Both have stood still: the second's Approve takes clicks.
  await expect(secondApprove).toBeEnabled();

  // The page clicks the second card's Approve (a click meant for the first) in the same task as the
  // first card leaves the list, before any frame is drawn, and notes how it is shown from then on.
  await page.evaluate(`window.pushedUp = new Promise((resolve) => {${IN_PAGE}
    const holds = [];
    const list = document.querySelector('[data-testid="approval-list"]');
    const observer = new MutationObserver(() => {
      if (approveOf('withdrawn')) return;
      observer.disconnect();
      const approve = approveOf('pushed-up');
      const heldBefore = approve.getAttribute('aria-disabled');
      const clicked = pointerClick('pushed-up');
      const watch = new MutationObserver(() => {
        holds.push(approve.getAttribute('aria-disabled'));
        if (approve.getAttribute('aria-disabled') === null) {
          watch.disconnect();
          resolve({ heldBefore, clicked, holds });
        }
      });
      watch.observe(approve, { attributes: true, attributeFilter: ['aria-disabled'] });
    });
    observer.observe(list, { childList: true, subtree: true });
  }); undefined`);
  withdraw.abort('the agent changed its mind');
  await expect(consolePage.approvals.cards()).toHaveCount(1);

  // Nothing had held the card when the click came: the click itself saw it had moved, and was held back.
  const pushed = (await page.evaluate('window.pushedUp')) as { heldBefore: string | null; clicked: boolean; holds: Array<string | null> };
  expect(pushed.heldBefore).toBeNull();
  expect(pushed.clicked).toBe(true);
  // It was then shown held, and let go; the note said why the click did nothing.
  expect(pushed.holds).toEqual(['true', null]);
  await expect(page.getByTestId('held-back-note')).toHaveText(HELD_BACK_NOTE);
  expect(await stillWaiting(second)).toBe(true);

  await consolePage.approvals.approve();
  expect((await second).structuredContent).toEqual({ rang: 'pushed-up' });
});

test('the console coming to the front holds its approving buttons: the click that brought it forward approves nothing', async ({ page }) => {
  const { consolePage, agent } = await openWithAgent(page);
  const call = ringBell(agent, 'behind-a-window');
  const card = await consolePage.approvals.waitForPrompt('ring_bell');
  const approve = card.getByRole('button', { name: 'Approve', exact: true });
  await expect(approve).toBeEnabled();

  // The window is focused (brought forward) and clicked in one go, as a click on it from behind would.
  const clicked = await page.evaluate(`(() => {${IN_PAGE}
    window.dispatchEvent(new FocusEvent('focus'));
    return pointerClick('behind-a-window');
  })()`);
  expect(clicked).toBe(true);
  await expect(page.getByTestId('held-back-note')).toHaveText(HELD_BACK_NOTE);
  await expect(approve).toBeEnabled();
  expect(await stillWaiting(call)).toBe(true);

  await approve.click();
  await expect(card).toHaveCount(0);
  expect((await call).structuredContent).toEqual({ rang: 'behind-a-window' });
});
