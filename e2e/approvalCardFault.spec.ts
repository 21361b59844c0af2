import { expect, test } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage';
import { startServedGate } from './support/servedGate';

/** The content that marks the prompt whose card is made to fail while it draws. */
const FAULT_MARKER = 'this card fails to draw';

test('a prompt whose card fails to draw is left with why and a working Deny, and the other prompts stay usable', async ({ page }) => {
  // No agent input makes a card throw any more, so the page makes one: the prompt carrying the
  // marker (an approval request: it carries a binding hash) gets arguments that cannot even be
  // turned into text, which the card does while drawing.
  await page.addInitScript((marker) => {
    const parse = JSON.parse;
    const unprintable = {
      toJSON() {
        throw new Error('arguments that cannot be shown');
      },
      toString() {
        throw new Error('arguments that cannot be shown');
      },
    };
    const poison = (value: unknown): void => {
      if (typeof value !== 'object' || value === null) return;
      const record = value as Record<string, unknown>;
      const args = record.arguments as Record<string, unknown> | undefined;
      if (typeof record.bindingHash === 'string' && args?.content === marker) record.arguments = unprintable;
      Object.values(record).forEach(poison);
    };
    JSON.parse = function parsePoisoned(text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) {
      const value: unknown = parse(text, reviver);
      poison(value);
      return value;
    } as typeof JSON.parse;
  }, FAULT_MARKER);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));

  const gate = await startServedGate();
  try {
    const consolePage = new ConsolePage(page);
    await consolePage.open(gate.consoleUrl);
    const agent = await gate.connectAgent();
    const broken = agent.callTool({ name: 'write_file', arguments: { path: 'broken.txt', content: FAULT_MARKER } });
    await consolePage.approvals.show();
    await expect(consolePage.approvals.unshownCards()).toHaveCount(1);
    const healthy = agent.callTool({ name: 'write_file', arguments: { path: 'healthy.txt', content: 'fine\n' } });
    const card = await consolePage.approvals.waitForPrompt('write_file');

    const unshown = consolePage.approvals.unshownCards();
    await expect(unshown).toContainText('This prompt cannot be shown: arguments that cannot be shown');
    await unshown.getByRole('button', { name: 'Deny', exact: true }).click();
    await expect(unshown).toHaveCount(0);
    expect(JSON.stringify((await broken).content)).toMatch(/denied/i);

    await consolePage.approvals.approve(card);
    expect((await healthy).isError).toBeFalsy();
    await expect(consolePage.approvals.cards()).toHaveCount(0);
    expect(errors).toEqual([]);
  } finally {
    await gate.stop();
  }
});
