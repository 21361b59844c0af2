/**
 * A stdio server's sandbox chosen in the Tools view (the console's setUpstreamSandbox, through a
 * real gate) or by chooseSandbox: written into servers.json with only that sandbox changed, held to
 * the file's own rules, and taken in at once: the server's new launch waits for approval.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GateError } from '../../shared/errors';
import type { UpstreamOverview, UpstreamSandbox } from '../../shared/upstream';
import { chooseSandbox } from '../../main/upstream/sandboxChoice';
import { readServersFile, serversFilePath } from '../../main/upstream/serversFile';
import { launchHash } from '../../main/upstream/definitionPin';
import { openGate, type Harness } from '../executor/gateHarness';
import { WAIT_MS } from '../fixtures/processes';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { FIXTURE, TEST_READABLE } from './helpers';

let base: string;
let home: string;
let harness: Harness | undefined;
beforeEach(() => {
  base = makeTempFolder();
  home = join(base, 'home');
  mkdirSync(home);
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  removeTempFolder(base);
});

/** Where the notes entry's sandbox value starts, and the text from its end on (comments, the other entries). */
const SANDBOX_AT = '"sandbox": ';
const AFTER_NOTES = '\n    },\n    /* left as it is */';

/** A servers file as a person writes it: comments, one-line entries, an HTTP server. */
function serversText(): string {
  return [
    '// My MCP servers: by hand, and from the Tools view',
    '{',
    '  "mcpServers": {',
    '    // notes: the fixture server',
    '    "notes": {',
    `      "command": ${JSON.stringify(process.execPath)},`,
    `      "args": [${JSON.stringify(FIXTURE)}, "normal"], // its usual tools`,
    `      ${SANDBOX_AT}{ "readable": ${JSON.stringify(TEST_READABLE)} }`,
    '    },',
    '    /* left as it is */',
    '    "git": { "command": "uvx", "args": ["mcp-server-git"] }, // never started here',
    '    "web": { "url": "https://mcp.example.com/mcp" }',
    '  }',
    '}',
    '',
  ].join('\n');
}

const CHOSEN: UpstreamSandbox = { network: true, readable: TEST_READABLE, writable: ['/srv/notes'], env: ['GITHUB_TOKEN'] };

function serverOf(overview: UpstreamOverview, name: string) {
  const server = overview.servers.find((candidate) => candidate.name === name);
  if (!server) throw new Error(`${name} is not in the overview: ${JSON.stringify(overview.servers.map((s) => s.name))}`);
  return server;
}

/** The overview once `ready` holds for it, polled for up to WAIT_MS. */
async function overviewWhen(ready: (overview: UpstreamOverview) => boolean): Promise<UpstreamOverview> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const overview = await harness!.gate.backend.handlers.upstreamServers({});
    if (ready(overview)) return overview;
    if (Date.now() > deadline) throw new Error(`not reached in time: ${JSON.stringify(overview.servers.map((s) => [s.name, s.status, s.detail]))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The refusal a promise ends with (it must end with one). */
async function refusal(promise: Promise<unknown>): Promise<GateError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof GateError)) throw new Error(`expected a GateError, got ${String(error)}`);
  return error;
}

describe('choosing a sandbox in the Tools view (setUpstreamSandbox)', () => {
  it('writes only that sandbox, stops the running server and shows its new launch waiting for approval', async () => {
    const file = serversFilePath(home);
    writeFileSync(file, serversText());
    harness = await openGate({ home });
    const handlers = harness.gate.backend.handlers;
    const before = serverOf(await handlers.upstreamServers({}), 'notes');
    await handlers.approveUpstreamLaunch({ server: 'notes', launchHash: before.launchHash });
    await overviewWhen((overview) => serverOf(overview, 'notes').status === 'ready');
    expect(harness.gate.registry.has('notes__echo')).toBe(true);

    const answer = await handlers.setUpstreamSandbox({ server: 'notes', sandbox: CHOSEN, launchHash: before.launchHash });

    // The answer is the new overview at once (no wait for the file watch).
    const after = serverOf(answer, 'notes');
    expect(after).toMatchObject({ status: 'awaiting-launch', launchApproved: false, sandbox: CHOSEN, tools: [] });
    expect(after.launchHash).not.toBe(before.launchHash);
    expect(harness.gate.registry.has('notes__echo')).toBe(false);
    // The text before the sandbox and after it (its comments, the other entries) is byte for byte as written.
    const original = serversText();
    const written = readFileSync(file, 'utf8');
    const prefix = original.slice(0, original.indexOf(SANDBOX_AT) + SANDBOX_AT.length);
    const suffix = original.slice(original.indexOf(AFTER_NOTES));
    expect(written.startsWith(prefix)).toBe(true);
    expect(written.endsWith(suffix)).toBe(true);
    expect(JSON.parse(written.slice(prefix.length, written.length - suffix.length))).toEqual(CHOSEN);
    // The file watch that follows changes nothing: the new launch still waits.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(serverOf(await handlers.upstreamServers({}), 'notes')).toMatchObject({ status: 'awaiting-launch', launchHash: after.launchHash });
    // Approving the new launch starts it again.
    await handlers.approveUpstreamLaunch({ server: 'notes', launchHash: after.launchHash });
    await overviewWhen((overview) => serverOf(overview, 'notes').status === 'ready');
  });

  it('refuses a card out of date, a relative folder (naming the field) and an HTTP server; nothing is written', async () => {
    const file = serversFilePath(home);
    writeFileSync(file, serversText());
    harness = await openGate({ home });
    const handlers = harness.gate.backend.handlers;
    const notes = serverOf(await handlers.upstreamServers({}), 'notes');

    const stale = await refusal(handlers.setUpstreamSandbox({ server: 'notes', sandbox: CHOSEN, launchHash: 'the-hash-of-an-older-launch' }));
    expect(stale.message).toMatch(/notes's entry in .*servers\.json changed since it was shown; look at its launch again/);

    const relative = await refusal(handlers.setUpstreamSandbox({ server: 'notes', sandbox: { ...CHOSEN, writable: ['/srv/notes', 'notes'] }, launchHash: notes.launchHash }));
    expect(relative.message).toMatch(/was not changed: notes sandbox\.writable\.1: must be an absolute path/);
    expect(relative.details).toMatchObject({ field: 'sandbox.writable.1' });

    const web = await refusal(handlers.setUpstreamSandbox({ server: 'web', sandbox: CHOSEN, launchHash: 'any' }));
    expect(web.message).toContain('web is reached over HTTP at https://mcp.example.com/mcp: Toolgate does not start it');

    expect(readFileSync(file, 'utf8')).toBe(serversText());
    expect(serverOf(await handlers.upstreamServers({}), 'notes').launchHash).toBe(notes.launchHash);
  });
});

describe('chooseSandbox', () => {
  it('writes nothing when the sandbox chosen is the one the entry has', () => {
    writeFileSync(serversFilePath(home), serversText());
    const choice = chooseSandbox(home, 'git', { network: false, readable: [], writable: [], env: [] });
    expect(choice.changed).toBe(false);
    expect(readFileSync(serversFilePath(home), 'utf8')).toBe(serversText());
  });

  it('writes only the fields that are not their default, or were written before, and reads back as chosen', () => {
    writeFileSync(serversFilePath(home), serversText());
    const choice = chooseSandbox(home, 'git', { network: false, readable: [], writable: ['/srv/repo'], env: [] });
    expect(choice.changed).toBe(true);
    expect(readServersFile(home).entries.git).toEqual({ command: 'uvx', args: ['mcp-server-git'], sandbox: { writable: ['/srv/repo'] } });
    expect(choice.launchHash).toBe(launchHash(readServersFile(home).servers.find((server) => server.name === 'git')!));
  });

  it('refuses a server not in the file, a disabled one and a bad variable name, saying what to do', () => {
    writeFileSync(serversFilePath(home), JSON.stringify({ mcpServers: { off: { command: 'uvx', disabled: true }, git: { command: 'uvx' } } }));
    expect(() => chooseSandbox(home, 'nope', CHOSEN)).toThrow(/no server named nope in .*servers\.json \(it has off, git\)/);
    expect(() => chooseSandbox(home, 'off', CHOSEN)).toThrow(/off is disabled in .*: remove its "disabled": true first/);
    expect(() => chooseSandbox(home, 'git', { ...CHOSEN, env: ['A=B'] })).toThrow(/git sandbox\.env\.0: is not an environment variable name/);
  });
});
