import { existsSync, readFileSync } from 'node:fs';
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

function text(result: unknown): string {
  return JSON.stringify((result as { content?: unknown }).content);
}

test('approve for this session: the next matching call of that agent runs unasked, another file still asks; deny and tell the agent reaches it verbatim', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();

  const first = agent.callTool({ name: 'write_file', arguments: { path: 'notes/a.md', content: 'one\n' } });
  const card = await consolePage.approvals.waitForPrompt('write_file');
  await expect(card).toContainText('Approve runs this call once');
  const editor = await consolePage.approvals.chooseScope(card, 'session');
  await expect(consolePage.approvals.ruleText(card)).toHaveValue('write_file(notes/a.md)');
  await expect(editor.getByTestId('rule-lasts')).toContainText('for this agent session');
  await consolePage.approvals.saveRuleButton(card).click();
  await expect(card).toHaveCount(0);
  expect((await first).isError).toBe(false);

  // The same call again: it runs, and no prompt appears.
  const again = await agent.callTool({ name: 'write_file', arguments: { path: 'notes/a.md', content: 'two\n' } });
  expect(again.isError).toBe(false);
  expect(readFileSync(join(gate.workspace, 'notes/a.md'), 'utf8')).toBe('two\n');
  await expect(consolePage.approvals.cards()).toHaveCount(0);

  // Another file is not covered: it asks, and the person's words reach the agent exactly.
  const other = agent.callTool({ name: 'write_file', arguments: { path: 'notes/b.md', content: 'x' } });
  const second = await consolePage.approvals.waitForPrompt('write_file');
  await consolePage.approvals.denyAndTell(second, 'Put it in notes/a.md instead.\nKeep one file.');
  const refused = await other;
  expect(refused.isError).toBe(true);
  expect(text(refused)).toContain(JSON.stringify('Put it in notes/a.md instead.\nKeep one file.').slice(1, -1));
  expect(existsSync(join(gate.workspace, 'notes/b.md'))).toBe(false);

  // The grant is listed with the approval that made it and its hit.
  await consolePage.permissions.show();
  const row = consolePage.permissions.row('write_file(notes/a.md)');
  await expect(row).toContainText('approval');
  await expect(row).toContainText('agent session');
  await expect(row.getByTestId('permission-hits')).toHaveText('1');

  // Kept for good, after reading what that means: the rule moves to the user policy file.
  const review = await consolePage.permissions.keepForGood('write_file(notes/a.md)', 'user');
  await expect(review).toHaveCount(0);
  await expect(row).toHaveAttribute('data-layer', 'user');
  await expect(row.getByTestId('permission-source')).toContainText('policy.json');
  expect(JSON.parse(readFileSync(join(gate.home, 'policy.json'), 'utf8'))).toEqual({ allow: ['write_file(notes/a.md)'] });
});

test('always allow writes the edited rule to the user file, Permissions shows its source, revoke makes the next call ask again; bad edits are refused', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  const userFile = join(gate.home, 'policy.json');

  const first = agent.callTool({ name: 'write_file', arguments: { path: 'docs/a.md', content: 'a\n' } });
  const card = await consolePage.approvals.waitForPrompt('write_file');
  const editor = await consolePage.approvals.chooseScope(card, 'user');
  const rule = consolePage.approvals.ruleText(card);
  await expect(rule).toHaveValue('write_file(docs/a.md)');
  await expect(editor.getByTestId('rule-lasts')).toContainText('user policy file');

  // An edit that does not read, or that would not allow this very call: refused, nothing saved.
  await rule.fill('write_file(docs/**');
  await expect(editor.getByTestId('rule-problems')).toContainText('no closing parenthesis');
  // Disabled for a reason of its own: the property, not aria-disabled, which an approving button also carries for a moment after it moves.
  await expect(consolePage.approvals.saveRuleButton(card)).toHaveJSProperty('disabled', true);
  await rule.fill('write_file(src/**)');
  await expect(editor.getByTestId('rule-problems')).toContainText('do not allow the call you are approving');
  await expect(consolePage.approvals.saveRuleButton(card)).toHaveJSProperty('disabled', true);
  // A rule over the whole workspace is allowed, with a warning.
  await rule.fill('write_file(**)');
  await expect(editor.getByTestId('rule-warnings')).toContainText('covers the whole workspace');
  expect(existsSync(userFile)).toBe(false);

  await rule.fill('write_file(docs/**)');
  await expect(editor.getByTestId('rule-warnings')).toHaveCount(0);
  await expect(consolePage.approvals.saveRuleButton(card)).toBeEnabled();
  await consolePage.approvals.saveRuleButton(card).click();
  await expect(card).toHaveCount(0);
  expect((await first).isError).toBe(false);
  expect(JSON.parse(readFileSync(userFile, 'utf8'))).toEqual({ allow: ['write_file(docs/**)'] });

  // The next call under docs/ runs unasked.
  expect((await agent.callTool({ name: 'write_file', arguments: { path: 'docs/b.md', content: 'b\n' } })).isError).toBe(false);
  await expect(consolePage.approvals.cards()).toHaveCount(0);

  await consolePage.permissions.show();
  const row = consolePage.permissions.row('write_file(docs/**)');
  await expect(row.getByTestId('permission-source')).toHaveText(`user policy line 3 (${userFile})`);
  await expect(row.getByTestId('permission-hits')).toHaveText('1');
  await consolePage.permissions.revoke('write_file(docs/**)');
  await expect(row).toHaveCount(0);
  expect(JSON.parse(readFileSync(userFile, 'utf8'))).toEqual({ allow: [] });

  const after = agent.callTool({ name: 'write_file', arguments: { path: 'docs/c.md', content: 'c\n' } });
  const asked = await consolePage.approvals.waitForPrompt('write_file');
  await consolePage.approvals.deny('not now', asked);
  expect((await after).isError).toBe(true);
  expect(existsSync(join(gate.workspace, 'docs/c.md'))).toBe(false);
});
