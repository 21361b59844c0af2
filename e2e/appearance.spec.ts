import { expect, test, type Page } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage';
import { startServedGate, type ServedGate } from './support/servedGate';

// How the console fits the person's screen and habits: a light or dark theme that follows the
// system unless the person picks one, and a layout that still works in a 900 px wide window.

let gate: ServedGate;

test.beforeEach(async () => {
  gate = await startServedGate();
});

test.afterEach(async () => {
  await gate.stop();
});

/** The page's computed background colour, as rgb(…). */
function pageBackground(page: Page): Promise<string> {
  return page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor');
}

/** How wide the page is laid out, scrolled content included. */
function pageWidth(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth');
}

/** Relative luminance of an rgb(…) colour, 0 (black) to 1 (white). */
function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((part) => {
    const channel = Number(part) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

test('follows a light system, switches to dark on request, and keeps the choice across a reload', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  expect(luminance(await pageBackground(page))).toBeGreaterThan(0.8);
  // Text stays readable on the light ground.
  const textColor = await page.evaluate<string>("getComputedStyle(document.querySelector('.brand')).color");
  expect(luminance(textColor)).toBeLessThan(0.1);

  await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  expect(luminance(await pageBackground(page))).toBeLessThan(0.05);

  await consolePage.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.getByRole('combobox', { name: 'Theme' })).toHaveValue('dark');

  // Back to "System": a dark system gives the dark theme, a light one the light theme, live.
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('system');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
});

test('at 900 px wide nothing is clipped: no sideways scroll, and Stop of a running command is on screen', async ({ page }) => {
  await page.setViewportSize({ width: 900, height: 700 });
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  const running = agent.callTool({ name: 'shell_exec', arguments: { command: 'sleep 30' } });
  const card = await consolePage.approvals.waitForPrompt('shell_exec');
  expect(await pageWidth(page)).toBeLessThanOrEqual(900);
  await expect(card.getByRole('button', { name: /^Approve/ }).first()).toBeInViewport();
  await consolePage.approvals.approve(card);

  for (const tab of ['Live', 'Approvals', 'Audit', 'Tools', 'Settings'] as const) {
    await consolePage.tab(tab);
    expect(await pageWidth(page), `${tab} scrolls sideways`).toBeLessThanOrEqual(900);
  }
  await consolePage.live.show();
  const stop = page.getByTestId('stop-call');
  await stop.scrollIntoViewIfNeeded();
  await expect(stop).toBeInViewport();
  const box = await stop.boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(900);
  await stop.click();
  const result = await running;
  expect(result.isError).toBe(true);
});

test('the diff editor follows the console theme, and switches with it', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  const writing = agent.callTool({ name: 'write_file', arguments: { path: 'theme.txt', content: 'light\n' } });
  const card = await consolePage.approvals.waitForPrompt('write_file');
  const editor = card.locator('.monaco-editor').last();
  await expect(editor).toBeVisible();
  // The e2e code is typed without the DOM library: the element is reached through its window.
  const editorBackground = () => editor.evaluate((element: any) => element.ownerDocument.defaultView.getComputedStyle(element).backgroundColor as string);
  await expect.poll(async () => luminance(await editorBackground())).toBeGreaterThan(0.8);
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
  await expect.poll(async () => luminance(await editorBackground())).toBeLessThan(0.05);
  await consolePage.approvals.deny('not now', card);
  expect((await writing).isError).toBe(true);
});
