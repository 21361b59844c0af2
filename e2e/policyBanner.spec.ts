import { writeFileSync } from 'node:fs';
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

test('a broken policy file shows a banner naming the file, line and fix, its calls ask, and the banner goes once it is fixed', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  await expect(page.getByTestId('policy-mode')).toHaveText('standard');
  await expect(page.getByTestId('policy-banner')).toHaveCount(0);

  const file = join(gate.home, 'policy.json');
  // A trailing comma: not JSON. The file is refused whole while the gate runs on.
  writeFileSync(file, '{\n  "allow": [\n    "calculator",\n  ]\n}\n');
  const banner = page.getByTestId('policy-banner');
  await expect(banner).toContainText(`${file} line 4`);
  await expect(banner).toContainText('not JSON');
  await expect(banner).toContainText('Fix: write one JSON object');

  // A SAFE call it could have allowed now waits for the person.
  const agent = await gate.connectAgent();
  const call = agent.callTool({ name: 'calculator', arguments: { expression: '6*7' } });
  const card = await consolePage.approvals.waitForPrompt('calculator');
  await expect(card).toContainText('policy-file-refused');
  await consolePage.approvals.approve(card);
  const approved = await call;
  expect(approved.isError).toBe(false);
  const approvedId = approved._meta?.['toolgate/callId'] as string;

  writeFileSync(file, '{"allow": ["calculator"]}\n');
  await expect(banner).toHaveCount(0);
  const after = await agent.callTool({ name: 'calculator', arguments: { expression: '1+2' } });
  expect(after.isError).toBe(false);

  // Live says who decided each: the person for the first, the rule (with its file and line) for the second.
  await consolePage.tab('Live');
  await expect(consolePage.live.rowFor(approvedId).getByTestId('decided-by')).toHaveText(' · person: approved');
  await expect(consolePage.live.rowFor(after._meta?.['toolgate/callId'] as string).getByTestId('decided-by')).toHaveText(` · rule: calculator (user policy line 1 (${file}))`);
});
