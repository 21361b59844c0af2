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

test('a person lists, searches and deletes the notes agents kept, and the delete is in the audit log', async ({ page }) => {
  const agent = await gate.connectAgent();
  const store = async (text: string, tags: string[]) =>
    ((await agent.callTool({ name: 'memory_store', arguments: { text, tags } })) as CallToolResult).structuredContent as { id: number };
  const staging = await store('Staging deploys run make deploy-staging.', ['deploy']);
  const lunch = await store('Lunch on Fridays is pasta.', []);

  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const { memory } = consolePage;
  const panel = await memory.show();
  await expect(memory.notes()).toHaveCount(2);
  await expect(memory.note(staging.id)).toContainText('tags: deploy');
  await expect(memory.note(staging.id)).toContainText('by e2e-agent 1.0.0');

  await memory.search('staging');
  await expect(memory.notes()).toHaveCount(1);
  await expect(memory.note(staging.id)).toContainText('**Staging**');

  await memory.search('');
  await expect(memory.notes()).toHaveCount(2);
  await memory.delete(lunch.id);
  await expect(memory.note(lunch.id)).toHaveCount(0);
  await expect(panel.getByTestId('memory-count')).toContainText('The newest of 1 notes');
  const listed = (await agent.callTool({ name: 'memory_list', arguments: {} })) as CallToolResult;
  expect((listed.structuredContent as { notes: Array<{ id: number }> }).notes.map((note) => note.id)).toEqual([staging.id]);

  const { audit } = consolePage;
  await audit.show();
  await expect(audit.callRows().filter({ hasText: 'memory_delete' })).toHaveCount(1);
  await agent.close();
});
