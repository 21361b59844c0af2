/**
 * servers.json edited while a real gate runs: a server added shows in the console's overview
 * within a second or two, waiting for its launch; a file that cannot be read leaves the servers as
 * they were and says why; a server removed leaves the overview. Nothing starts unasked.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { UpstreamOverview } from '../../shared/upstream';
import { EnvironmentSecretProvider } from '../../main/secrets/secretProvider';
import { writeSecretsFile } from '../../main/secrets/secretsFile';
import { toolgateRoot } from '../../main/state/paths';
import { reviewCommand } from '../../main/upstream/reviewCommand';
import { nextApproval, openGate, type Harness } from '../executor/gateHarness';
import { WAIT_MS } from '../fixtures/processes';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The overview once `ready` holds for it, polled for up to WAIT_MS (the file is looked at every second; a busy machine is slower). */
async function overviewWhen(ready: (overview: UpstreamOverview) => boolean): Promise<UpstreamOverview> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const overview = await harness!.gate.backend.handlers.upstreamServers({});
    if (ready(overview) || Date.now() > deadline) return overview;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a server whose start failed', () => {
  it('starts again once the secret it lacked is stored, with no restart of the gate', async () => {
    harness = await openGate();
    const readable = [toolgateRoot(), dirname(dirname(process.execPath))];
    const entry = { command: process.execPath, args: [resolve('test/fixtures/upstreamServer.mjs'), 'normal'], env: { NOTES_KEY: '$ENV.NOTES_KEY' }, sandbox: { readable } };
    writeFileSync(join(harness.home, 'servers.json'), JSON.stringify({ mcpServers: { notes: entry } }));
    await overviewWhen((overview) => overview.servers.length > 0);
    // Reviewed from a terminal that has the secret in its environment; the gate has it nowhere.
    const printed: string[] = [];
    const reviewed = await reviewCommand({ home: harness.home, server: 'notes', yes: true, trustAll: true, acceptFindings: false, secrets: new EnvironmentSecretProvider({ NOTES_KEY: 'a-notes-key-1234' }), out: (text) => printed.push(text) });
    expect(reviewed, printed.join('')).toBe(0);
    const failed = await overviewWhen((overview) => overview.servers[0]?.status === 'failed');
    expect(failed.servers[0]).toMatchObject({ status: 'failed' });
    expect(failed.servers[0]!.detail).toContain('NOTES_KEY');

    // What `toolgate secret set NOTES_KEY --for server:notes` writes.
    writeSecretsFile(join(harness.home, 'secrets.json'), { NOTES_KEY: { value: 'a-notes-key-1234', for: ['server:notes'] } });
    const ready = await overviewWhen((overview) => overview.servers[0]?.status === 'ready');
    expect(ready.servers[0]).toMatchObject({ name: 'notes', status: 'ready' });
    expect(ready.servers[0]!.tools.length).toBeGreaterThan(0);
  });
});

describe('servers.json edited while the gate runs', () => {
  it('shows a new server waiting for its launch, keeps it through an unreadable edit, and drops it when removed', async () => {
    harness = await openGate();
    const file = join(harness.home, 'servers.json');
    expect((await harness.gate.backend.handlers.upstreamServers({})).servers).toEqual([]);

    writeFileSync(file, JSON.stringify({ mcpServers: { notes: { command: 'node', args: ['notes-server.js'] } } }));
    const added = await overviewWhen((overview) => overview.servers.length > 0);
    expect(added.servers).toMatchObject([{ name: 'notes', status: 'awaiting-launch', launchApproved: false, launch: 'node notes-server.js' }]);

    writeFileSync(file, '{ "mcpServers": { "notes": { "command": "node", ');
    const unreadable = await overviewWhen((overview) => overview.fileProblem !== undefined);
    expect(unreadable.fileProblem).toMatch(/servers\.json.*the servers go on as they were until it is fixed/s);
    expect(unreadable.servers.map((server) => server.name)).toEqual(['notes']);

    rmSync(file);
    const removed = await overviewWhen((overview) => overview.servers.length === 0);
    expect(removed).toMatchObject({ servers: [], refused: [] });
    expect(removed.fileProblem).toBeUndefined();
  });

  // Two waits of up to WAIT_MS each (the file seen, the server ready) and a call: the test's own time covers them
  // all, so on a busy machine a slow step fails saying what never came, not with the test's timeout.
  it('starts a server added while it runs once `servers review NAME --yes --trust-all` approves it from a terminal, and serves its tools', async () => {
    harness = await openGate();
    const readable = [toolgateRoot(), dirname(dirname(process.execPath))];
    writeFileSync(join(harness.home, 'servers.json'), JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [resolve('test/fixtures/upstreamServer.mjs'), 'normal'], sandbox: { readable } } } }));
    const waiting = await overviewWhen((overview) => overview.servers.length > 0);
    expect(waiting.servers).toMatchObject([{ name: 'notes', status: 'awaiting-launch' }]);

    // What `toolgate servers review notes --yes --trust-all` does in another process: approve the launch, trust the tools, in the state folder.
    const printed: string[] = [];
    const reviewed = await reviewCommand({ home: harness.home, server: 'notes', yes: true, trustAll: true, acceptFindings: false, secrets: new EnvironmentSecretProvider({}), out: (text) => printed.push(text) });
    expect(reviewed, printed.join('')).toBe(0);

    // The launch approval and the tools' trust reach the gate through separate files: the server can be ready a moment before its tools are trusted.
    const ready = await overviewWhen((overview) => overview.servers[0]?.status === 'ready' && overview.servers[0].tools.length > 0 && overview.servers[0].tools.every((tool) => tool.pin === 'trusted'));
    expect(ready.servers[0]).toMatchObject({ name: 'notes', status: 'ready', launchApproved: true });
    // Trusted at the class it suggests (RESTRICTED: it declares no annotations), so a person approves the call.
    const prompt = nextApproval(harness.gate);
    const calling = harness.gate.executor.call({ tool: 'notes__echo', arguments: { text: 'hot-added' } });
    // A call that ends without asking fails here, saying how, instead of leaving the wait for a prompt to the test's timeout.
    const first = await Promise.race([prompt, calling.then((result) => ({ endedUnasked: result }))]);
    if ('endedUnasked' in first) expect.fail(`the call ended without a prompt: ${JSON.stringify(first.endedUnasked)}`);
    harness.gate.approvals.decide(first.approvalId, 'approve');
    const echoed = await calling;
    expect(echoed.ok, JSON.stringify(echoed.error)).toBe(true);
    expect(JSON.stringify(echoed.data)).toContain('hot-added');
  }, 4 * WAIT_MS);
});
