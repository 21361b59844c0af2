import { expect, test } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage';
import { startServedGate, type ServedGate } from './support/servedGate';

// Live at a glance: each call's row names the agent that asked, shows the time it waited for a
// person apart from the time its tool ran, links to its prompt while it waits and to its audit
// trail always; a shell's terminal is as tall as its output.

let gate: ServedGate;

test.beforeEach(async () => {
  gate = await startServedGate();
});

test.afterEach(async () => {
  await gate.stop();
});

test('a row names the agent, links to its waiting prompt, counts the wait apart from the run, and links to its audit trail', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  const { live, approvals, audit } = consolePage;

  const write = agent.callTool({ name: 'write_file', arguments: { path: 'plan.md', content: 'step one\n' } });
  await live.waitForStatus('write_file', 'awaiting-approval');
  const callId = (await live.rowFor('write_file').getAttribute('data-call-id'))!;
  await expect(live.agentCell(callId)).toContainText('e2e-agent 1.0.0');
  await expect(live.waitedCell(callId)).toContainText('so far');
  await expect(live.ranCell(callId)).toHaveText('—');

  // The link opens that very prompt on the Approvals tab, focused, naming the agent and its session start.
  await live.promptLink(callId).click();
  await expect(consolePage.selectedTab()).toHaveText(/^Approvals/);
  const card = approvals.openedCard();
  await expect(card).toHaveCount(1);
  await expect(card).toContainText(callId);
  await expect(page.locator('[data-opened="true"]')).toBeFocused();
  await expect(card.getByTestId('agent-client')).toHaveText('e2e-agent 1.0.0');
  await expect(card.getByTestId('agent-since')).toBeVisible();

  // Waited a second and more for the person; the write itself takes milliseconds.
  await page.waitForTimeout(1_200);
  await approvals.approve(card);
  expect((await write).isError).toBe(false);
  await live.waitForStatus(callId, 'completed');
  const waited = Number(await live.waitedCell(callId).getAttribute('data-ms'));
  const ran = Number(await live.ranCell(callId).getAttribute('data-ms'));
  expect(waited).toBeGreaterThanOrEqual(1_200);
  expect(ran).toBeGreaterThan(0);
  expect(ran).toBeLessThan(waited);
  await expect(live.waitedCell(callId)).toHaveText(/^\d+(\.\d)? s$/);
  await expect(live.promptLink(callId)).toHaveCount(0);

  // A call nobody was asked about waited for no one.
  await agent.callTool({ name: 'echo', arguments: { text: 'hi' } });
  await live.waitForStatus('echo', 'completed');
  await expect(live.waitedCell('echo')).toHaveText('—');

  // The audit trail link shows that call's records and no other's.
  await live.auditTrailLink(callId).click();
  await expect(consolePage.selectedTab()).toHaveText(/^Audit/);
  await expect(audit.trailHeading()).toContainText(`of call ${callId}`);
  await expect(audit.callFilter()).toHaveValue(callId);
  const kinds = await audit.rows().evaluateAll((rows) => rows.map((row) => row.getAttribute('data-kind')));
  expect(kinds).toEqual(['completed', 'started', 'approval-decided', 'approval-requested', 'policy', 'capability', 'invoked']);
  const calls = await audit.rows().locator('td:nth-child(4)').allTextContents();
  expect(new Set(calls)).toEqual(new Set([callId]));

  // An id that names no call says so, and how to get a right one.
  await audit.filterByCall('no-such-call');
  await expect(page.getByTestId('audit-trail-empty')).toContainText('No audit record names call no-such-call');
  await page.getByRole('button', { name: 'Every call', exact: true }).click();
  await expect(audit.trailHeading()).toHaveCount(0);
  await expect(audit.callRows().first()).toBeVisible();
});

test("a shell's terminal is as tall as its output, up to 24 rows", async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();

  const short = agent.callTool({ name: 'shell_exec', arguments: { command: "printf 'one\\ntwo\\nthree\\n'" } });
  await consolePage.approvals.approve(await consolePage.approvals.waitForPrompt('shell_exec'));
  expect((await short).isError).toBe(false);
  await consolePage.live.show();
  const terminal = await consolePage.live.terminalFor('shell_exec');
  await expect(terminal).toContainText('three');
  await expect(terminal.locator('.xterm-rows > div')).toHaveCount(3);
  await expect.poll(() => consolePage.live.terminalRows(terminal)).toEqual(['one', 'two', 'three']);

  const long = agent.callTool({ name: 'shell_exec', arguments: { command: 'seq 1 100' } });
  await consolePage.approvals.approve(await consolePage.approvals.waitForPrompt('shell_exec'));
  expect((await long).isError).toBe(false);
  await consolePage.live.show();
  const tall = await consolePage.live.terminalFor('shell_exec');
  await expect(tall).toContainText('100');
  await expect(tall.locator('.xterm-rows > div')).toHaveCount(24);
  // A long output shows its end: the last 24 lines.
  await expect.poll(async () => (await consolePage.live.terminalRows(tall)).filter((row) => row !== '').at(-1)).toBe('100');
});

test('a gate restarted over the same state folder shows the calls of the one before in Live, marked so, with their audit trail', async ({ page }) => {
  const agent = await gate.connectAgent();
  const before = await agent.callTool({ name: 'echo', arguments: { text: 'before the restart' } });
  const callId = String(before._meta?.['toolgate/callId']);
  await gate.stop({ keepFolders: true });
  gate = await startServedGate([], { folders: { home: gate.home, workspace: gate.workspace } });

  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const { live, audit } = consolePage;
  await live.waitForStatus(callId, 'completed');
  const row = live.rowFor(callId);
  await expect(row).toHaveAttribute('data-before-restart', 'true');
  await expect(row.getByTestId('before-restart')).toHaveText('before restart');
  await expect(live.agentCell(callId)).toContainText('e2e-agent 1.0.0');
  await expect(live.outcomeOf(callId)).resolves.toContain('before the restart');

  // A call of this gate is not marked.
  const again = await gate.connectAgent();
  const after = await again.callTool({ name: 'echo', arguments: { text: 'after' } });
  const afterId = String(after._meta?.['toolgate/callId']);
  await live.waitForStatus(afterId, 'completed');
  await expect(live.rowFor(afterId)).not.toHaveAttribute('data-before-restart', 'true');

  await live.auditTrailLink(callId).click();
  await expect(audit.trailHeading()).toContainText(`of call ${callId}`);
  const kinds = await audit.rows().evaluateAll((rows) => rows.map((auditRow) => auditRow.getAttribute('data-kind')));
  expect(kinds).toEqual(['completed', 'started', 'policy', 'capability', 'invoked']);
});

test('Permissions names the agent a session grant holds for', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const agent = await gate.connectAgent();
  const write = agent.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: 'a\n' } });
  const card = await consolePage.approvals.waitForPrompt('write_file');
  await consolePage.approvals.chooseScope(card, 'session');
  await consolePage.approvals.saveRuleButton(card).click();
  expect((await write).isError).toBe(false);
  await consolePage.permissions.show();
  await expect(consolePage.permissions.row('write_file(notes.md)')).toContainText('e2e-agent 1.0.0, session since');
});
