import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

test('edit_file: the prompt shows the snippet edit as a diff; Approve edits, Deny leaves the file as it was', async ({ page }) => {
  writeFileSync(join(gate.workspace, 'config.ini'), 'name = demo\nport = 8080\nmode = dev\n');
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();

  const approved = agent.callTool({
    name: 'edit_file',
    arguments: { path: 'config.ini', strategy: 'snippet', old: 'port = 8080', new: 'port = 9090' },
  });
  const card = await consolePage.approvals.waitForPrompt('edit_file');
  const diff = await consolePage.approvals.diffText(card);
  expect(diff).toContain('-port = 8080');
  expect(diff).toContain('+port = 9090');
  await expect(await consolePage.approvals.diffEditor(card)).toBeVisible();
  expect(readFileSync(join(gate.workspace, 'config.ini'), 'utf8')).toContain('port = 8080');
  await consolePage.approvals.approve(card);
  expect((await approved).isError).toBe(false);
  expect(readFileSync(join(gate.workspace, 'config.ini'), 'utf8')).toBe('name = demo\nport = 9090\nmode = dev\n');

  const patch = ['--- a/config.ini', '+++ b/config.ini', '@@ -3 +3 @@', '-mode = dev', '+mode = prod', ''].join('\n');
  const denied = agent.callTool({ name: 'edit_file', arguments: { path: 'config.ini', strategy: 'apply', patch } });
  const second = await consolePage.approvals.waitForPrompt('edit_file');
  expect(await consolePage.approvals.diffText(second)).toContain('+mode = prod');
  await consolePage.approvals.deny('not in production yet', second);
  const refusal = await denied;
  expect(refusal.isError).toBe(true);
  expect(JSON.stringify(refusal.content)).toContain('not in production yet');
  expect(readFileSync(join(gate.workspace, 'config.ini'), 'utf8')).toBe('name = demo\nport = 9090\nmode = dev\n');
});

test('delete_path: the prompt lists what would go; Deny keeps it, Approve deletes it and the agent is told', async ({ page }) => {
  mkdirSync(join(gate.workspace, 'build/assets'), { recursive: true });
  writeFileSync(join(gate.workspace, 'build/app.js'), 'console.log(1)\n');
  writeFileSync(join(gate.workspace, 'build/assets/logo.svg'), '<svg/>\n');
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();

  const denied = agent.callTool({ name: 'delete_path', arguments: { path: 'build', recursive: true } });
  const card = await consolePage.approvals.waitForPrompt('delete_path');
  // A recursive delete is judged a tier higher than a single file's.
  await expect(card).toContainText('RESTRICTED');
  const entries = card.getByTestId('delete-entries');
  await expect(entries).toContainText('build/app.js');
  await expect(entries).toContainText('build/assets/logo.svg');
  await expect(card.getByTestId('delete-stats')).toContainText('4 entries');
  await consolePage.approvals.deny('I still need the build', card);
  expect((await denied).isError).toBe(true);
  expect(existsSync(join(gate.workspace, 'build/assets/logo.svg'))).toBe(true);

  const approved = agent.callTool({ name: 'delete_path', arguments: { path: 'build', recursive: true } });
  const second = await consolePage.approvals.waitForPrompt('delete_path');
  await consolePage.approvals.approve(second);
  const result = await approved;
  expect(result.isError).toBe(false);
  expect(existsSync(join(gate.workspace, 'build'))).toBe(false);
});
