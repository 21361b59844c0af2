import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ConsolePage } from './pages/ConsolePage';
import { startServedGate, type ServedGate } from './support/servedGate';

let gate: ServedGate;

test.beforeEach(async () => {
  gate = await startServedGate();
});

test.afterEach(async () => {
  await gate.stop();
});

test('a person undoes a call from the audit detail after seeing its diff; a file changed since waits for their choice', async ({ page }) => {
  writeFileSync(join(gate.workspace, 'notes.txt'), 'the first draft\n');
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  const written = agent.callTool({ name: 'write_file', arguments: { path: 'notes.txt', content: 'the agent rewrote it\n' } });
  await consolePage.approvals.approve(await consolePage.approvals.waitForPrompt('write_file'));
  const callId = ((await written) as CallToolResult)._meta!['toolgate/callId'] as string;
  expect(readFileSync(join(gate.workspace, 'notes.txt'), 'utf8')).toBe('the agent rewrote it\n');

  const { audit } = consolePage;
  await audit.show();
  await audit.callRow(callId).click();
  await expect(audit.detail()).toBeVisible();
  await audit.detail().getByTestId('undo-button').click();
  // The plan first: the diff of what undoing does, and nothing written yet.
  const diff = audit.detail().getByTestId('undo-diff');
  await expect(diff).toContainText('-the agent rewrote it');
  await expect(diff).toContainText('+the first draft');
  expect(readFileSync(join(gate.workspace, 'notes.txt'), 'utf8')).toBe('the agent rewrote it\n');

  // The person's editor changes the file before they confirm: the undo stops and shows three versions.
  writeFileSync(join(gate.workspace, 'notes.txt'), 'edited in the editor\n');
  await audit.detail().getByTestId('undo-confirm').click();
  await expect(audit.detail().getByTestId('undo-report')).toContainText('Changed since the call');
  await expect(audit.detail().getByTestId('undo-versions')).toContainText(/before the call [0-9a-f]{12}.*after it [0-9a-f]{12}.*now [0-9a-f]{12}/);
  await expect(audit.detail().getByTestId('undo-confirm')).toBeDisabled();
  expect(readFileSync(join(gate.workspace, 'notes.txt'), 'utf8')).toBe('edited in the editor\n');

  await audit.detail().getByLabel('restore anyway').check();
  await audit.detail().getByTestId('undo-confirm').click();
  await expect(audit.detail().getByTestId('undo-report')).toContainText('Undone');
  expect(readFileSync(join(gate.workspace, 'notes.txt'), 'utf8')).toBe('the first draft\n');

  // Settings shows what the undo store holds beside its size.
  await consolePage.open(gate.consoleUrl);
  const settings = await consolePage.tab('Settings');
  await expect(settings.getByTestId('undo-store-usage')).toContainText(/^holds .+ in [1-9]\d* before-images?$/);
});

test('a person undoes a shell command from Live after seeing its diff, and the file is back', async ({ page }) => {
  writeFileSync(join(gate.workspace, 'plan.md'), 'step one\n');
  // The narrowest window the console is laid out for.
  await page.setViewportSize({ width: 900, height: 900 });
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  const ran = agent.callTool({ name: 'shell_exec', arguments: { command: 'printf "overwritten\\n" > plan.md && touch made.txt' } });
  await consolePage.approvals.approve(await consolePage.approvals.waitForPrompt('shell_exec'));
  const callId = ((await ran) as CallToolResult)._meta!['toolgate/callId'] as string;
  expect(readFileSync(join(gate.workspace, 'plan.md'), 'utf8')).toBe('overwritten\n');

  const { live } = consolePage;
  await live.waitForStatus(callId, 'completed');
  const row = live.rowFor(callId);
  await row.getByTestId('open-undo').click();
  const panel = live.undoRowFor(callId);
  await expect(panel).toContainText('changed 2 paths');
  await panel.getByTestId('undo-button').click();
  await expect(panel.getByTestId('undo-diff').first()).toBeVisible();
  await expect(panel.getByTestId('undo-file').filter({ hasText: 'plan.md' }).getByTestId('undo-diff')).toContainText('+step one');
  // Confirming stays within the window, beside the diffs.
  const confirm = await panel.getByTestId('undo-confirm').boundingBox();
  expect(confirm!.x + confirm!.width).toBeLessThanOrEqual(900);
  // Nothing is written before the person confirms.
  expect(readFileSync(join(gate.workspace, 'plan.md'), 'utf8')).toBe('overwritten\n');
  await panel.getByTestId('undo-confirm').click();
  await expect(panel.getByTestId('undo-report')).toContainText('Undone');
  expect(readFileSync(join(gate.workspace, 'plan.md'), 'utf8')).toBe('step one\n');
  expect(existsSync(join(gate.workspace, 'made.txt'))).toBe(false);
  // The undo is a call of its own in Live, which can itself be undone (redo).
  const undoCallId = (await panel.getByTestId('undo-report').textContent())!.match(/call (\S+) in the audit/)![1]!;
  await expect(live.rowFor(undoCallId).getByTestId('open-undo')).toBeVisible();
});
