import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage';
import { startServedGate, type ServedGate } from './support/servedGate';

let gate: ServedGate;

test.beforeEach(async () => {
  gate = await startServedGate();
});

test.afterEach(async () => {
  await gate.stop();
});

test('an agent writes a file only after a person approves the diff in the console; a denial reaches the agent', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  await expect(consolePage.workspace()).toContainText(gate.workspace);

  const agent = await gate.connectAgent();
  const tools = await agent.listTools();
  expect(tools.tools.map((tool) => tool.name)).toContain('write_file');

  // The agent's call blocks while the person looks at the diff.
  const approved = agent.callTool({ name: 'write_file', arguments: { path: 'notes/plan.md', content: '# Plan\n\nship it\n' } });
  const card = await consolePage.approvals.waitForPrompt('write_file');
  await expect(card).toContainText('ELEVATED');
  expect(await consolePage.approvals.diffText(card)).toContain('+ship it');
  await expect(await consolePage.approvals.diffEditor(card)).toBeVisible();
  await expect(card.locator('.monaco-editor').first()).toBeVisible();
  expect(existsSync(join(gate.workspace, 'notes/plan.md'))).toBe(false);

  await consolePage.approvals.approve(card);
  const result = await approved;
  expect(result.isError).toBe(false);
  expect(result.structuredContent).toMatchObject({ path: 'notes/plan.md', created: true });
  expect(readFileSync(join(gate.workspace, 'notes/plan.md'), 'utf8')).toBe('# Plan\n\nship it\n');

  // A second call is denied with a reason; the agent reads it and the file is untouched.
  const denied = agent.callTool({ name: 'write_file', arguments: { path: 'notes/plan.md', content: 'overwritten\n' } });
  const second = await consolePage.approvals.waitForPrompt('write_file');
  expect(await consolePage.approvals.diffText(second)).toContain('-ship it');
  await consolePage.approvals.deny('keep the plan as it is', second);
  const refusal = await denied;
  expect(refusal.isError).toBe(true);
  expect(JSON.stringify(refusal.content)).toContain('keep the plan as it is');
  expect(readFileSync(join(gate.workspace, 'notes/plan.md'), 'utf8')).toBe('# Plan\n\nship it\n');

  // Both calls show in Live with their outcome, and the audit chain verifies.
  await consolePage.live.show();
  await expect(consolePage.live.rows().filter({ hasText: 'write_file' })).toHaveCount(2);
  await expect(consolePage.live.rows().first()).toHaveAttribute('data-status', 'rejected');
  await consolePage.audit.waitForChainStatus(/Chain verified \(\d+ records\)/);
  await expect(consolePage.audit.callRows().first()).toBeVisible();
});

test('a preset reason sits under "Deny because:" and denies at once with that reason', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  const denied = agent.callTool({ name: 'write_file', arguments: { path: 'preset.md', content: 'x\n' } });
  const card = await consolePage.approvals.waitForPrompt('write_file');
  await expect(consolePage.approvals.denyBecause(card)).toHaveText(['Not needed', 'Too broad: narrow it down', 'Wrong file or command', 'Not what I asked for']);
  await consolePage.approvals.denyWithPreset(card, 'Wrong file or command');
  const refusal = await denied;
  expect(refusal.isError).toBe(true);
  expect(JSON.stringify(refusal.content)).toContain('Wrong file or command');
  expect(existsSync(join(gate.workspace, 'preset.md'))).toBe(false);
});

test('a console page without the token cannot reach the gate', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await page.goto(gate.consoleUrl.replace(/#.*$/, ''));
  await expect(consolePage.notice()).toContainText('console URL');
  await page.goto(gate.consoleUrl.replace(/#token=.*/, `#token=${'0'.repeat(64)}`));
  await expect(consolePage.notice()).toContainText('refused');
});

test("the agents' MCP token in the console URL is refused: an agent cannot open the console to approve its own call", async ({ page }) => {
  const agent = await gate.connectAgent();
  const pending = agent.callTool({ name: 'write_file', arguments: { path: 'self-approved.txt', content: 'pwned\n' } });
  const consolePage = new ConsolePage(page);
  await page.goto(gate.consoleUrl.replace(/#token=.*/, `#token=${gate.token}`));
  await expect(consolePage.notice()).toContainText('refused');
  await expect(consolePage.notice()).toContainText("The agents' MCP token does not open the console");
  expect(existsSync(join(gate.workspace, 'self-approved.txt'))).toBe(false);

  // The person, with the console URL, still sees the prompt and answers it.
  await consolePage.open(gate.consoleUrl);
  await consolePage.approvals.deny('not yours to approve', await consolePage.approvals.waitForPrompt('write_file'));
  const result = await pending;
  expect(result.isError).toBe(true);
  expect(JSON.stringify(result.content)).toContain('EDENIED');
  expect(existsSync(join(gate.workspace, 'self-approved.txt'))).toBe(false);
});
