import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Io } from '../../main/cli/commands';
import { main } from '../../main/cli/main';
import { formatServerList, serversCommand } from '../../main/cli/serverCommands';
import { readServersFile, serversFilePath } from '../../main/upstream/serversFile';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

let base: string;
let home: string;
beforeEach(() => {
  base = makeTempFolder();
  home = join(base, 'home');
});
afterEach(() => {
  vi.restoreAllMocks();
  removeTempFolder(base);
});

/** Runs `toolgate servers …` in this process. */
async function servers(argv: string[]) {
  let out = '';
  let err = '';
  const io: Io = { out: (text) => void (out += text), err: (text) => void (err += text), home };
  const code = await serversCommand(argv, io);
  return { code, out, err };
}

/** Runs the whole CLI as `toolgate …` would, catching what it prints. */
async function cli(argv: string[]) {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((text) => ((out += String(text)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((text) => ((err += String(text)), true));
  vi.stubEnv('TOOLGATE_HOME', home);
  try {
    const code = await main(argv);
    return { code, out, err };
  } finally {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  }
}

function writeServers(mcpServers: Record<string, unknown>): void {
  mkdirSync(home, { recursive: true });
  writeFileSync(serversFilePath(home), JSON.stringify({ mcpServers }, null, 2));
}

const MIXED = {
  files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/notes'], env: { API_KEY: 'literal-secret-value' }, sandbox: { writable: ['/srv/notes'] } },
  remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer $ENV.REMOTE_TOKEN' } },
  paused: { command: 'uvx', args: ['mcp-server-git'], disabled: true },
  leaky: { url: 'http://mcp.example.com/mcp' },
};

describe('toolgate servers list', () => {
  it('with no servers file says how to add servers, exit 0', async () => {
    const run = await servers(['list']);
    expect(run.code).toBe(0);
    expect(run.out).toContain('no servers in');
    expect(run.out).toContain('toolgate servers import --from');
  });

  it('shows each server, its sandbox, the disabled and the refused with their field; exit 1 when one is refused', async () => {
    writeServers(MIXED);
    const run = await servers(['list']);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/files\s+stdio\s+npx -y @modelcontextprotocol\/server-filesystem \/srv\/notes {2}\(sandbox: network off, writes \/srv\/notes\)/);
    expect(run.out).toMatch(/remote\s+http\s+https:\/\/mcp\.example\.com\/mcp/);
    expect(run.out).toMatch(/paused\s+disabled/);
    expect(run.out).toContain('leaky url: plain http to mcp.example.com would send your requests and tokens readable on the way: use https://mcp.example.com/mcp');
    expect(run.out).not.toContain('literal-secret-value');
  });

  it('--json lists env and header names, never their values', async () => {
    writeServers(MIXED);
    const run = await servers(['list', '--json']);
    const listed = JSON.parse(run.out);
    expect(listed.servers[0]).toMatchObject({ name: 'files', transport: 'stdio', env: ['API_KEY'], sandbox: { network: false, writable: ['/srv/notes'] } });
    expect(listed.servers[1]).toMatchObject({ name: 'remote', headers: ['Authorization'] });
    expect(listed.disabled).toEqual(['paused']);
    expect(listed.refused).toEqual([{ name: 'leaky', field: 'url', message: expect.any(String) }]);
    expect(run.out).not.toContain('literal-secret-value');
  });

  it('shows a running gate\'s state of each server when given one', () => {
    writeServers({ remote: MIXED.remote });
    const text = formatServerList('servers.json', readServersFile(home), [{ name: 'remote', transport: 'http', status: 'failed', detail: 'HTTP 401 from the server', restarts: 3, tools: 0, refused: [] }]);
    expect(text).toContain('[failed: HTTP 401 from the server]');
  });
});

describe('toolgate servers import and undo', () => {
  it('imports from a file, rewrites the client, says where the backup is; undo puts it back', async () => {
    const client = join(base, 'mcp.json');
    const original = '{\n  "mcpServers": {\n    "git": { "command": "uvx", "args": ["mcp-server-git"], "autoApprove": ["git_status"] }\n  },\n  "other": true\n}\n';
    writeFileSync(client, original);
    const run = await servers(['import', '--from', client, '--rewrite']);
    expect(run.code).toBe(0);
    expect(run.out).toContain('added: git');
    expect(run.out).toContain('git: dropped autoApprove');
    expect(run.out).toContain(`rewrote ${client}`);
    expect(run.out).toMatch(/backup: .*mcp\.json\.toolgate-backup-/);
    expect(run.out).toContain(`undo with: toolgate servers undo --from ${client}`);
    // It says what comes next as the gate does it: nothing starts until its launch is approved.
    expect(run.out).toContain('Nothing starts unasked: approve each launch');
    // uvx downloads the server: the hint names the command that opens its sandbox, whole.
    expect(run.out).toContain('say so with `toolgate servers sandbox git` (--writable DIR, --network on).');
    expect(readFileSync(client, 'utf8')).toContain('"toolgate"');

    const undo = await servers(['undo', '--from', client]);
    expect(undo.code).toBe(0);
    expect(undo.out).toContain(`restored ${client}`);
    expect(readFileSync(client, 'utf8')).toBe(original);
  });

  it('reads a project config with --project and exits 1 naming a refused server', async () => {
    mkdirSync(join(base, 'app', '.cursor'), { recursive: true });
    writeFileSync(join(base, 'app', '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { ok: { command: 'npx' }, old: { type: 'sse', url: 'https://x.example/sse' } } }));
    const run = await servers(['import', '--from', 'cursor', '--project', join(base, 'app')]);
    expect(run.code).toBe(1);
    expect(run.out).toContain('added: ok');
    expect(run.out).toContain('refused old type: the SSE transport is not supported');
  });

  it('errors exit 2 with the message: a client config that is not JSON, a missing --from, an unknown option', async () => {
    const client = join(base, 'broken.json');
    writeFileSync(client, '{ "mcpServers": ');
    const broken = await cli(['servers', 'import', '--from', client]);
    expect(broken.code).toBe(2);
    expect(broken.err).toContain(`${client} is not JSON`);
    expect((await cli(['servers', 'import'])).err).toContain('needs --from');
    const typo = await cli(['servers', 'import', '--rewite', 'yes', '--from', client]);
    expect(typo).toMatchObject({ code: 2, err: expect.stringContaining('unknown option --rewite') });
    expect((await cli(['servers', 'undo'])).err).toContain('rewritten no client config');
  });

  it('--help lists the subcommands and their options', async () => {
    expect((await cli(['servers', '--help'])).out).toMatch(/list[\s\S]*import[\s\S]*undo/);
    expect((await cli(['servers', 'import', '--help'])).out).toContain('--from CLIENT|FILE');
  });
});

describe('toolgate servers sandbox', () => {
  const NOTES = '{\n  // mine\n  "mcpServers": {\n    "notes": { "command": "node", "args": ["notes.js"], "sandbox": { "writable": ["/srv/old"] } }, // kept\n    "remote": { "url": "https://mcp.example.com/mcp" }\n  }\n}\n';

  it('adds and empties lists, sets the network, prints the launch with its sandbox and that it needs approval', async () => {
    mkdirSync(home, { recursive: true });
    writeFileSync(serversFilePath(home), NOTES);
    const run = await servers(['sandbox', 'notes', '--network', 'on', '--no-writable', '--writable', '/srv/notes', '--writable', '/srv/more', '--readable', '/srv/docs', '--env', 'GITHUB_TOKEN']);
    expect(run.code).toBe(0);
    expect(run.out).toContain('notes starts with: node notes.js\n  sandbox: network on, writes /srv/notes, /srv/more, also reads /srv/docs, gets from the gate\'s environment PATH, HOME, LANG, GITHUB_TOKEN\n');
    expect(run.out).toContain('its launch changed, so it needs your approval before it starts: toolgate servers review notes');
    const file = readServersFile(home);
    expect(file.servers[0]).toMatchObject({ name: 'notes', sandbox: { network: true, readable: ['/srv/docs'], writable: ['/srv/notes', '/srv/more'], env: ['GITHUB_TOKEN'] } });
    const text = readFileSync(serversFilePath(home), 'utf8');
    expect(text).toContain('// mine');
    expect(text).toContain('}, // kept\n    "remote": { "url": "https://mcp.example.com/mcp" }\n');

    // Adding keeps what is there; one already listed is not listed twice.
    const more = await servers(['sandbox', 'notes', '--writable', '/srv/notes', '--writable', '/srv/third']);
    expect(more.out).toContain('writes /srv/notes, /srv/more, /srv/third,');
  });

  it('without options shows the sandbox; the same sandbox again writes nothing', async () => {
    mkdirSync(home, { recursive: true });
    writeFileSync(serversFilePath(home), NOTES);
    const shown = await servers(['sandbox', 'notes']);
    expect(shown.out).toContain('sandbox: network off, writes /srv/old, also reads nothing');
    expect(shown.out).toContain('change it with --network on|off');
    const same = await servers(['sandbox', 'notes', '--network', 'off', '--writable', '/srv/old']);
    expect(same.out).toContain('that is the sandbox notes already has');
    expect(readFileSync(serversFilePath(home), 'utf8')).toBe(NOTES);
  });

  it('refuses with exit 2 and a clear message: an HTTP server, a relative folder, a bad --network; nothing is written', async () => {
    mkdirSync(home, { recursive: true });
    writeFileSync(serversFilePath(home), NOTES);
    const remote = await cli(['servers', 'sandbox', 'remote', '--network', 'on']);
    expect(remote).toMatchObject({ code: 2, err: expect.stringContaining('remote is reached over HTTP at https://mcp.example.com/mcp: Toolgate does not start it') });
    const relative = await cli(['servers', 'sandbox', 'notes', '--writable', 'notes']);
    expect(relative).toMatchObject({ code: 2, err: expect.stringMatching(/was not changed: notes sandbox\.writable\.1: must be an absolute path/) });
    const network = await cli(['servers', 'sandbox', 'notes', '--network', 'yes']);
    expect(network).toMatchObject({ code: 2, err: expect.stringContaining('--network takes on or off, not "yes"') });
    expect(readFileSync(serversFilePath(home), 'utf8')).toBe(NOTES);
    expect((await cli(['servers', 'sandbox', '--help'])).out).toMatch(/--writable DIR …[\s\S]*--no-writable[\s\S]*servers review NAME/);
  });
});
