import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientConfigPath, convertClientEntry, type ClientConfig } from '../../main/upstream/clientConfigs';
import { bridgeEntry, rewritesFilePath, undoRewrite } from '../../main/upstream/clientRewrite';
import { importServers } from '../../main/upstream/serverImport';
import { readServersFile, serversFilePath } from '../../main/upstream/serversFile';
import { toolgateRoot } from '../../main/state/paths';
import { gateErrorOf } from '../fixtures/gateErrors';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

let base: string;
let home: string;
beforeEach(() => {
  base = makeTempFolder();
  home = join(base, 'toolgate-home');
});
afterEach(() => removeTempFolder(base));

/** A client config file in the temp folder holding `text`, as `--from FILE` names it. */
function clientFile(text: string, name = 'claude_desktop_config.json', mode = 0o644): ClientConfig {
  const path = join(base, name);
  writeFileSync(path, text, { mode });
  chmodSync(path, mode);
  return { client: 'file', path };
}

/** A Claude Desktop config with settings besides its servers, odd spacing and a tab, to prove they stay byte for byte. */
const DESKTOP_CONFIG = `{
\t"globalShortcut":   "Ctrl+Space",
\t"mcpServers": {
\t\t"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"], "alwaysAllow": ["read_file"]},
\t\t"github": {"url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer \${GITHUB_TOKEN}"}, "timeout": 30000}
\t},
\t"theme" : "dark"
}
`;

describe('clientConfigPath', () => {
  it('finds each client where it keeps its servers, per platform and per project', () => {
    const lookup = { userHome: '/home/me', env: {} };
    expect(clientConfigPath('claude-desktop', { ...lookup, platform: 'linux' }).path).toBe('/home/me/.config/Claude/claude_desktop_config.json');
    expect(clientConfigPath('claude-desktop', { ...lookup, platform: 'darwin' }).path).toBe('/home/me/Library/Application Support/Claude/claude_desktop_config.json');
    expect(clientConfigPath('claude-desktop', { userHome: 'C:\\Users\\me', platform: 'win32', env: { APPDATA: 'C:\\Users\\me\\AppData\\Roaming' } }).path).toBe(
      'C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
    );
    expect(clientConfigPath('claude-code', { ...lookup, platform: 'linux' }).path).toBe('/home/me/.claude.json');
    expect(clientConfigPath('claude-code', { ...lookup, platform: 'linux', project: '/work/app' }).path).toBe('/work/app/.mcp.json');
    expect(clientConfigPath('cursor', { ...lookup, platform: 'linux' }).path).toBe('/home/me/.cursor/mcp.json');
    expect(clientConfigPath('cursor', { ...lookup, platform: 'linux', project: '/work/app' }).path).toBe('/work/app/.cursor/mcp.json');
    expect(clientConfigPath('./some/mcp.json', lookup)).toEqual({ client: 'file', path: join(process.cwd(), 'some/mcp.json') });
  });

  it('refuses a --from that is neither a client nor a file, and --project where there is none', async () => {
    expect((await gateErrorOf(() => clientConfigPath('claude'))).message).toContain('--from takes claude-desktop, claude-code, cursor');
    expect((await gateErrorOf(() => clientConfigPath('claude-desktop', { project: '/work/app' }))).message).toContain('no project config');
  });
});

describe('convertClientEntry', () => {
  it('drops client-only fields and turns ${VAR} in env and headers into $ENV secrets, saying so', () => {
    const converted = convertClientEntry({
      type: 'stdio',
      command: 'npx',
      args: ['--dir', '${PROJECT_DIR}'],
      env: { API_KEY: '${API_KEY}', MODE: '${MODE:-fast}', LOWER: '${lower}', CURSOR: '${env:CURSOR_KEY}' },
      autoApprove: ['x'],
      timeout: 10,
    });
    expect(converted.entry).toEqual({
      command: 'npx',
      args: ['--dir', '${PROJECT_DIR}'],
      env: { API_KEY: '$ENV.API_KEY', MODE: '$ENV.MODE', LOWER: '${lower}', CURSOR: '$ENV.CURSOR_KEY' },
    });
    expect(converted.dropped).toEqual(['autoApprove', 'timeout']);
    const notes = Object.fromEntries(converted.notes.map((note) => [note.field, note.message]));
    expect(notes['args.1']).toContain('left as text');
    expect(notes['env.MODE']).toContain('default "fast" is not kept');
    expect(notes['env.LOWER']).toContain('left as text');
    expect(notes['env.API_KEY']).toContain('toolgate secret set API_KEY');
  });
});

describe('importServers', () => {
  it('merges the servers, reporting dropped fields and refusing a bad entry while keeping the good ones', () => {
    const config = clientFile(
      JSON.stringify({ mcpServers: { ...JSON.parse(DESKTOP_CONFIG.replace(/\t/g, '')).mcpServers, 'bad__name': { command: 'npx' }, old: { url: 'https://x.example/sse', type: 'sse' } } }),
    );
    const report = importServers(home, config);
    expect(report.added).toEqual(['files', 'github']);
    expect(report.refused.map((refused) => [refused.name, refused.field])).toEqual([
      ['bad__name', 'name'],
      ['old', 'type'],
    ]);
    expect(report.dropped).toEqual([
      { name: 'files', fields: ['alwaysAllow'] },
      { name: 'github', fields: ['timeout'] },
    ]);
    const { servers } = readServersFile(home);
    expect(servers.find((server) => server.name === 'github')).toMatchObject({ headers: { Authorization: 'Bearer $ENV.GITHUB_TOKEN' } });
    expect(servers.map((server) => server.name).sort()).toEqual(['files', 'github']);
  });

  it('refuses a name servers.json has with another entry unless replace is asked, and keeps comments in servers.json', () => {
    mkdirSync(home, { recursive: true });
    const mine = '{\n  // my own servers, with notes\n  "mcpServers": {\n    "files": { "command": "node", "args": ["my-files.js"] } // hand-tuned\n  }\n}\n';
    writeFileSync(serversFilePath(home), mine);
    const config = clientFile(DESKTOP_CONFIG);
    const first = importServers(home, config);
    expect(first.refused).toEqual([{ name: 'files', field: 'name', message: expect.stringContaining('--replace') }]);
    expect(first.added).toEqual(['github']);
    const text = readFileSync(serversFilePath(home), 'utf8');
    expect(text).toContain('// my own servers, with notes');
    expect(text).toContain('"files": { "command": "node", "args": ["my-files.js"] } // hand-tuned');
    expect(importServers(home, config).unchanged).toEqual(['github']);
    const replaced = importServers(home, config, { replace: true });
    expect(replaced.replaced).toEqual(['files']);
    expect(readFileSync(serversFilePath(home), 'utf8')).toContain('// my own servers, with notes');
    expect(readServersFile(home).servers.find((server) => server.name === 'files')).toMatchObject({ command: 'npx' });
  });

  it('a client config that is not JSON is a clear error and nothing is written', async () => {
    const config = clientFile('{ "mcpServers": { "a": { "command": "npx" } ');
    const error = await gateErrorOf(() => importServers(home, config, { rewrite: true }));
    expect(error.message).toContain(`${config.path} is not JSON`);
    expect(error.message).toMatch(/line \d+, column \d+/);
    expect(existsSync(home)).toBe(false);
    expect(readdirSync(base)).toEqual(['claude_desktop_config.json']);
  });

  it('a missing client config or one without mcpServers says so', async () => {
    expect((await gateErrorOf(() => importServers(home, { client: 'cursor', path: join(base, 'nope.json') }))).message).toContain('there is no cursor config at');
    expect((await gateErrorOf(() => importServers(home, clientFile('{"theme": "dark"}')))).message).toContain('holds no "mcpServers"');
  });

  it('skips an entry that is Toolgate\'s own bridge', () => {
    const config = clientFile(JSON.stringify({ mcpServers: { toolgate: bridgeEntry(home), git: { command: 'uvx', args: ['mcp-server-git'] } } }));
    const report = importServers(home, config);
    expect(report.bridges).toEqual(['toolgate']);
    expect(report.added).toEqual(['git']);
  });
});

describe('rewrite and undo', () => {
  it('rewrites only mcpServers (the rest byte-identical, the mode kept), backs up first, and undo restores the file exactly', async () => {
    const config = clientFile(DESKTOP_CONFIG, 'claude_desktop_config.json', 0o640);
    const report = importServers(home, config, { rewrite: true, replace: false });
    const record = report.rewrite!;
    expect(record.backup).toMatch(/claude_desktop_config\.json\.toolgate-backup-\d{8}T\d{6}Z$/);
    expect(readFileSync(record.backup, 'utf8')).toBe(DESKTOP_CONFIG);
    expect(statSync(record.backup).mode & 0o777).toBe(0o640);

    const after = readFileSync(config.path, 'utf8');
    const start = DESKTOP_CONFIG.indexOf('{', DESKTOP_CONFIG.indexOf('"mcpServers"'));
    const end = DESKTOP_CONFIG.indexOf('\t},\n\t"theme"') + 2;
    expect(after.slice(0, start)).toBe(DESKTOP_CONFIG.slice(0, start));
    expect(after.endsWith(DESKTOP_CONFIG.slice(end))).toBe(true);
    expect(JSON.parse(after)).toEqual({
      globalShortcut: 'Ctrl+Space',
      theme: 'dark',
      mcpServers: { toolgate: { command: process.execPath, args: [join(toolgateRoot(), 'bin', 'toolgate.js'), 'mcp'], env: { TOOLGATE_HOME: home } } },
    });
    expect(statSync(config.path).mode & 0o777).toBe(0o640);
    expect(JSON.parse(readFileSync(rewritesFilePath(home), 'utf8')).rewrites).toHaveLength(1);

    expect((await gateErrorOf(() => importServers(home, config, { rewrite: true }))).message).toContain('already rewritten');

    expect(undoRewrite(home, { file: config.path }).outcome).toBe('restored');
    expect(readFileSync(config.path, 'utf8')).toBe(DESKTOP_CONFIG);
    expect(statSync(config.path).mode & 0o777).toBe(0o640);
    expect(existsSync(record.backup)).toBe(false);
    expect((await gateErrorOf(() => undoRewrite(home))).message).toContain('rewritten no client config');
  });

  it('refuses an undo after the client file was edited since, leaving it untouched; --force puts back only mcpServers', async () => {
    const config = clientFile(DESKTOP_CONFIG);
    const { rewrite } = importServers(home, config, { rewrite: true });
    const edited = readFileSync(config.path, 'utf8').replace('"dark"', '"light"');
    writeFileSync(config.path, edited);
    const error = await gateErrorOf(() => undoRewrite(home));
    expect(error.message).toContain('changed since Toolgate rewrote it');
    expect(error.message).toContain(rewrite!.backup);
    expect(readFileSync(config.path, 'utf8')).toBe(edited);

    expect(undoRewrite(home, { force: true }).outcome).toBe('servers-restored');
    expect(readFileSync(config.path, 'utf8')).toBe(DESKTOP_CONFIG.replace('"dark"', '"light"'));
    expect(existsSync(rewrite!.backup)).toBe(true);
  });

  it('refuses to rewrite when a server would be lost, writing nothing', async () => {
    const config = clientFile(JSON.stringify({ mcpServers: { ok: { command: 'npx' }, web: { url: 'http://mcp.example.com/mcp' } } }));
    const before = readFileSync(config.path, 'utf8');
    expect((await gateErrorOf(() => importServers(home, config, { rewrite: true }))).message).toContain('would lose web');
    expect(readFileSync(config.path, 'utf8')).toBe(before);
    expect(existsSync(home)).toBe(false);
    expect(readdirSync(base)).toEqual(['claude_desktop_config.json']);
  });

  it('rewrites a symlinked config where it points, leaving the link a link', () => {
    const real = clientFile(DESKTOP_CONFIG, 'real.json');
    const link = join(base, 'linked.json');
    symlinkSync(real.path, link);
    importServers(home, { client: 'file', path: link }, { rewrite: true });
    expect(readFileSync(real.path, 'utf8')).toContain('"toolgate"');
    expect(undoRewrite(home).outcome).toBe('restored');
    expect(readFileSync(real.path, 'utf8')).toBe(DESKTOP_CONFIG);
  });
});
