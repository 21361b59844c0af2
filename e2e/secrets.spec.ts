import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage';
import { startServedGate, type ServedGate } from './support/servedGate';

/** Exported and listed with --secret-env. */
const DEPLOY_TOKEN = 'e2e-D3ploy-t0ken-5b7c9d';
/** Exported but not listed: the gate must not hand it out. */
const UNLISTED = 'e2e-Unl1sted-8e6f4a';

let gate: ServedGate;

test.beforeEach(async () => {
  process.env.E2E_DEPLOY_TOKEN = DEPLOY_TOKEN;
  process.env.E2E_UNLISTED = UNLISTED;
  gate = await startServedGate(['--secret-env', 'E2E_DEPLOY_TOKEN']);
});

test.afterEach(async () => {
  await gate.stop();
  delete process.env.E2E_DEPLOY_TOKEN;
  delete process.env.E2E_UNLISTED;
});

test('a call that receives a secret asks the person, whose prompt names the secret; its value never shows', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();

  // A STANDARD tool runs unasked; with a secret in its arguments a person decides.
  const searched = agent.callTool({ name: 'search_files', arguments: { query: '$ENV.E2E_DEPLOY_TOKEN' } });
  const searchCard = await consolePage.approvals.waitForPrompt('search_files');
  await expect(searchCard).toContainText('STANDARD');
  await expect(await consolePage.approvals.secretsNotice(searchCard)).toHaveText('This call receives secrets: E2E_DEPLOY_TOKEN');
  await consolePage.approvals.deny('no searching for the token', searchCard);
  const refusal = await searched;
  expect(refusal.isError).toBe(true);
  expect(JSON.stringify(refusal.content)).toContain('no searching for the token');

  // Approved, the tool gets the value; what comes back, and what the console shows, has the placeholder.
  const written = agent.callTool({ name: 'write_file', arguments: { path: 'deploy.env', content: 'TOKEN=$ENV.E2E_DEPLOY_TOKEN\n' } });
  const writeCard = await consolePage.approvals.waitForPrompt('write_file');
  await expect(await consolePage.approvals.secretsNotice(writeCard)).toContainText('E2E_DEPLOY_TOKEN');
  await consolePage.approvals.approve(writeCard);
  expect((await written).isError).toBe(false);
  expect(readFileSync(join(gate.workspace, 'deploy.env'), 'utf8')).toBe(`TOKEN=${DEPLOY_TOKEN}\n`);
  const read = await agent.callTool({ name: 'read_file', arguments: { path: 'deploy.env' } });
  expect(JSON.stringify(read.content)).toContain('TOKEN=$ENV.E2E_DEPLOY_TOKEN');
  expect(JSON.stringify(read)).not.toContain(DEPLOY_TOKEN);

  // A variable nobody listed is not a secret the agent can name.
  const unlisted = await agent.callTool({ name: 'search_files', arguments: { query: '$ENV.E2E_UNLISTED' } });
  expect(unlisted.isError).toBe(true);
  expect(JSON.stringify(unlisted.content)).toContain('--secret-env E2E_UNLISTED');

  await consolePage.live.show();
  await expect(consolePage.live.rows().filter({ hasText: 'read_file' })).toHaveCount(1);
  await consolePage.audit.waitForChainStatus(/Chain verified \(\d+ records\)/);
  const html = await page.content();
  expect(html).not.toContain(DEPLOY_TOKEN);
  expect(html).not.toContain(UNLISTED);
});

test("a shell command that receives a secret is prompted as output that can carry it in any form", async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  const ran = agent.callTool({ name: 'shell_exec', arguments: { command: 'printf %s "$ENV.E2E_DEPLOY_TOKEN" | rev' } });
  const card = await consolePage.approvals.waitForPrompt('shell_exec');
  await expect(await consolePage.approvals.secretsNotice(card)).toHaveText('This call receives secrets: E2E_DEPLOY_TOKEN (output can carry it in any form)');
  await consolePage.approvals.deny('not this time', card);
  expect((await ran).isError).toBe(true);
});

test('the gate refuses to start with a --secret-env variable that is not set, saying how to fix it', async () => {
  await expect(startServedGate(['--secret-env', 'E2E_NOT_EXPORTED'])).rejects.toThrow(/--secret-env E2E_NOT_EXPORTED: E2E_NOT_EXPORTED is not set/);
});
