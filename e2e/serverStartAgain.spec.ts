import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, test } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage';
import { startServedGate, type ServedGate } from './support/servedGate';

// A server whose start failed (here: its program is not there yet) is started again from its card,
// with the launch the person approved, once what it lacked is there; no restart of the gate.

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const FIXTURE = join(ROOT, 'test/fixtures/upstreamServer.mjs');
// A checkout or a Node under /tmp is hidden in the servers' sandboxes unless named readable.
const READABLE = [ROOT, dirname(dirname(process.execPath))];

let gate: ServedGate;
let folder: string;

test.beforeAll(async () => {
  // Outside /tmp, which the sandbox gives the server a private one of.
  folder = mkdtempSync('/var/tmp/toolgate-e2e-later-');
  gate = await startServedGate([], {
    servers: () => ({ mcpServers: { later: { command: process.execPath, args: [join(folder, 'server.mjs')], sandbox: { readable: [...READABLE, folder] } } } }),
  });
});

test.afterAll(async () => {
  await gate?.stop();
  rmSync(folder, { recursive: true, force: true });
});

test('a server whose start failed is started again from its card once what it lacked is there', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const tools = consolePage.tools;
  await tools.approveLaunch('later');
  const card = await tools.waitForServerStatus('later', 'failed');
  await expect(card.getByTestId('upstream-detail')).toBeVisible();

  // The program is put where the launch names it; the person starts the server again.
  writeFileSync(join(folder, 'server.mjs'), `await import(${JSON.stringify(pathToFileURL(FIXTURE).href)});\n`);
  await card.getByRole('button', { name: 'Start again', exact: true }).click();
  await tools.waitForServerStatus('later', 'ready');
  await expect(card.getByTestId('start-again')).toHaveCount(0);
  await expect(card.getByTestId('upstream-tool').first()).toBeVisible();
});
