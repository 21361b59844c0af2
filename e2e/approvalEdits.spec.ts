import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import type { AuditRecord } from '../shared/audit';
import { stepsOf } from '../shared/auditSteps';
import { CallEditPanel } from './pages/CallEditPanel';
import { ConsolePage } from './pages/ConsolePage';
import { startServedGate, type ServedGate } from './support/servedGate';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
let gate: ServedGate;
let policyFolder: string;

test.beforeEach(async () => {
  // The administrator's policy: private notes are never written by an agent, edited or not.
  policyFolder = mkdtempSync(join(tmpdir(), 'toolgate-e2e-policy-'));
  const managed = join(policyFolder, 'managed.json');
  writeFileSync(managed, JSON.stringify({ deny: [{ rule: 'write_file(private/**)', reason: 'private notes stay by hand' }] }));
  process.env.TOOLGATE_MANAGED_POLICY = managed;
  try {
    gate = await startServedGate();
  } finally {
    delete process.env.TOOLGATE_MANAGED_POLICY;
  }
});

test.afterEach(async () => {
  await gate.stop();
  rmSync(policyFolder, { recursive: true, force: true });
});

function text(result: unknown): string {
  return ((result as { content?: Array<{ text?: string }> }).content ?? []).map((item) => item.text ?? '').join('\n');
}

/** The audit records of the gate, newest first, as `toolgate audit list --json` prints them. */
function auditRecords(home: string): Array<{ kind: string; callId: string; payload: Record<string, unknown> }> {
  const listed = spawnSync(process.execPath, ['bin/toolgate.js', 'audit', 'list', '--json', '--limit', '100'], {
    cwd: ROOT,
    env: { ...process.env, TOOLGATE_HOME: home },
    encoding: 'utf8',
  });
  expect(listed.status, listed.stderr).toBe(0);
  // Each step of a call, as the records holding several steps hold them.
  return (JSON.parse(listed.stdout) as AuditRecord[]).flatMap(stepsOf) as Array<{ kind: string; callId: string; payload: Record<string, unknown> }>;
}

const LINES = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join('\n') + '\n';

test('a write edited in the diff’s right pane runs with the edit, the agent is told, and the audit keeps both versions', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  writeFileSync(join(gate.workspace, 'notes.md'), 'old\n');

  const call = agent.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: 'the agent draft\n' } });
  const card = await consolePage.approvals.waitForPrompt('write_file');
  const edit = new CallEditPanel(page, card);
  await edit.typeNewContent('written by the person\n');
  await expect(edit.summary()).toContainText('content: changed (+1 \u22121 lines)');
  await expect(edit.summary()).toContainText('Policy for the edited call: ask');
  await expect(edit.approveButton()).toBeEnabled();
  await edit.approveButton().click();
  await expect(card).toHaveCount(0);

  const result = await call;
  expect(result.isError).toBe(false);
  expect(readFileSync(join(gate.workspace, 'notes.md'), 'utf8')).toBe('written by the person\n');
  expect(text(result)).toContain('A person edited this call before approving it, and it ran as edited: content: changed (+1 \u22121 lines)');

  const callId = (result._meta as Record<string, unknown>)['toolgate/callId'];
  const decided = auditRecords(gate.home).find((record) => record.callId === callId && record.kind === 'approval-decided');
  expect(decided?.payload.edit).toMatchObject({
    by: 'person',
    original: { path: 'notes.md', content: 'the agent draft\n' },
    edited: { path: 'notes.md', content: 'written by the person\n' },
  });
});

test('leaving one hunk of two out, by keyboard, writes the other only and the agent is told which', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  writeFileSync(join(gate.workspace, 'list.txt'), LINES);
  const proposed = LINES.replace('line 3\n', 'line 3\nADDED\n').replace('line 25\n', 'CHANGED 25\n');

  const call = agent.callTool({ name: 'write_file', arguments: { path: 'list.txt', content: proposed } });
  const card = await consolePage.approvals.waitForPrompt('write_file');
  const edit = new CallEditPanel(page, card);
  const second = edit.hunkSwitch(2);
  await expect(second).toBeChecked();
  await expect(second).toHaveAccessibleName('Write hunk 2 (file lines 21\u201329, proposed lines 22\u201330)');
  await second.focus();
  await page.keyboard.press('Space');
  await expect(second).not.toBeChecked();
  await expect(edit.summary()).toContainText('left out hunk 2 (file lines 21\u201329, proposed lines 22\u201330)');
  await edit.approveButton().click();
  await expect(card).toHaveCount(0);

  const result = await call;
  expect(result.isError).toBe(false);
  expect(readFileSync(join(gate.workspace, 'list.txt'), 'utf8')).toBe(LINES.replace('line 3\n', 'line 3\nADDED\n'));
  expect(text(result)).toContain('left out hunk 2 (file lines 21\u201329, proposed lines 22\u201330) @@ -21,9 +22,9 @@; only the other hunks were written');
});

test('edited arguments: a field failing the schema or a deny rule is named and Approve stays disabled; undo brings the call back', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();

  const call = agent.callTool({ name: 'write_file', arguments: { path: 'notes/today.md', content: 'x\n' } });
  const card = await consolePage.approvals.waitForPrompt('write_file');
  const edit = new CallEditPanel(page, card);
  const box = await edit.openArguments();

  await box.fill('{ "path": "notes/today.md", "content": 42 }');
  await expect(edit.problems()).toContainText('content: Invalid input: expected string');
  // Disabled for a reason of its own: the property, not aria-disabled, which an approving button also carries for a moment after it moves.
  await expect(edit.approveButton()).toHaveJSProperty('disabled', true);
  await expect(card.getByTestId('approve-blocked')).toHaveText(' Approve is disabled: fix content (see the edit above)');

  await box.fill('{ "path": "notes/today.md", "content": ');
  await expect(edit.problems()).toContainText('(arguments): not JSON');
  await expect(edit.approveButton()).toHaveJSProperty('disabled', true);

  await box.fill('{ "path": "private/diary.md", "content": "x\\n" }');
  await expect(edit.problems()).toContainText('path: the edited call is denied by policy');
  await expect(edit.problems()).toContainText('private notes stay by hand');
  await expect(edit.approveButton()).toHaveJSProperty('disabled', true);

  await edit.undo();
  await expect(edit.problems()).toHaveCount(0);
  await expect(edit.approveButton()).toBeEnabled();
  await consolePage.approvals.deny('not today', card);
  expect((await call).isError).toBe(true);
});

test('an edit of a file that changed on disk meanwhile is refused: nothing is written and the agent is told to call again', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  writeFileSync(join(gate.workspace, 'notes.md'), 'first\n');

  const call = agent.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: 'the agent draft\n' } });
  const card = await consolePage.approvals.waitForPrompt('write_file');
  const edit = new CallEditPanel(page, card);
  await edit.typeNewContent('the person version\n');
  await expect(edit.approveButton()).toBeEnabled();
  writeFileSync(join(gate.workspace, 'notes.md'), 'changed by someone else\n');
  await edit.approveButton().click();
  await expect(card).toHaveCount(0);

  const result = await call;
  expect(result.isError).toBe(true);
  expect(text(result)).toContain('changed on disk after the prompt was shown');
  expect(readFileSync(join(gate.workspace, 'notes.md'), 'utf8')).toBe('changed by someone else\n');
});
