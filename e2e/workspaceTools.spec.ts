import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

test('a change of 20,000 lines is summarised with "Show anyway"; the console stays responsive and Approve still writes it', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  const content = Array.from({ length: 20_000 }, (_, line) => `row ${line} of a generated table`).join('\n');

  const approved = agent.callTool({ name: 'write_file', arguments: { path: 'table.txt', content } });
  const card = await consolePage.approvals.waitForPrompt('write_file');
  await expect(await consolePage.approvals.largeDiffSummary(card)).toContainText('20,000 lines');
  await expect(await consolePage.approvals.diffEditor(card)).toHaveCount(0);
  // Nothing heavy was drawn: moving between tabs is immediate.
  await consolePage.live.show();
  await consolePage.approvals.show();
  await consolePage.approvals.showLargeDiff(card);
  await expect(await consolePage.approvals.diffEditor(card)).toBeVisible();
  await consolePage.approvals.approve(card);
  expect((await approved).isError).toBe(false);
  expect(readFileSync(join(gate.workspace, 'table.txt'), 'utf8')).toBe(content);
});

test('shell_exec: the prompt marks each sub-command, redirection and substitution; Deny runs nothing, Approve runs it', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  const command = 'echo "built $(date +%Y)" > made.txt && cat made.txt | wc -l; rm -f gone.txt';
  writeFileSync(join(gate.workspace, 'gone.txt'), 'still here\n');

  const denied = agent.callTool({ name: 'shell_exec', arguments: { command } });
  const card = await consolePage.approvals.waitForPrompt('shell_exec');
  await expect(card).toContainText('RESTRICTED');
  // Before approving, the person reads whether what the command changes can be taken back.
  await expect(card.getByTestId('approval-undoable')).toHaveText('undoable');
  const parts = card.getByTestId('sub-commands').locator('li');
  // date (inside the substitution), echo, cat, wc, rm: each judged on its own line.
  await expect(parts).toHaveCount(5);
  await expect(card.getByTestId('sub-commands')).toContainText('> made.txt');
  await expect(card.getByTestId('sub-commands')).toContainText('runs $(date +%Y)');
  await expect(parts.filter({ hasText: 'rm' })).toContainText('gone.txt');
  await consolePage.approvals.deny('no deleting', card);
  expect((await denied).isError).toBe(true);
  expect(existsSync(join(gate.workspace, 'made.txt'))).toBe(false);
  expect(existsSync(join(gate.workspace, 'gone.txt'))).toBe(true);

  const approved = agent.callTool({ name: 'shell_exec', arguments: { command } });
  await consolePage.approvals.approve(await consolePage.approvals.waitForPrompt('shell_exec'));
  const result = await approved;
  expect(result.isError).toBe(false);
  expect(readFileSync(join(gate.workspace, 'made.txt'), 'utf8')).toMatch(/^built \d{4}\n$/);
  expect(existsSync(join(gate.workspace, 'gone.txt'))).toBe(false);
});

test('http_fetch: the prompt shows method and URL; nothing is sent before Approve, nor after Deny', async ({ page }) => {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Release notes</h1><p>All <b>good</b>.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notes`;
  const fetching = await startServedGate(['--grant', `net:read:127.0.0.1:${(server.address() as AddressInfo).port}`]);
  try {
    const consolePage = new ConsolePage(page);
    await consolePage.open(fetching.consoleUrl);
    const agent = await fetching.connectAgent();

    const denied = agent.callTool({ name: 'http_fetch', arguments: { url } });
    const card = await consolePage.approvals.waitForPrompt('http_fetch');
    await expect(card.getByTestId('request-line')).toHaveText(`GET ${url}`);
    await expect(card.getByTestId('request-host')).toHaveText('127.0.0.1');
    // What was sent cannot be recalled: the prompt says so, in full on hover when the header is narrow.
    await expect(card.getByTestId('approval-undoable')).toHaveAttribute('title', /^not undoable: it reaches the network/);
    await expect(card.getByTestId('approval-undoable')).toBeVisible();
    await consolePage.approvals.deny('not now', card);
    expect((await denied).isError).toBe(true);
    expect(requests).toEqual([]);

    const approved = agent.callTool({ name: 'http_fetch', arguments: { url } });
    await consolePage.approvals.approve(await consolePage.approvals.waitForPrompt('http_fetch'));
    const result = await approved;
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ status: 200, content: expect.stringContaining('# Release notes') });
    expect(requests).toEqual(['/notes']);
  } finally {
    await fetching.stop();
    server.close();
  }
});
