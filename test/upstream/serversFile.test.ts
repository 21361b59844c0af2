import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseServersFile, readServersFile, serversFilePath, writeServersFile } from '../../main/upstream/serversFile';
import { gateErrorOf } from '../fixtures/gateErrors';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

let home: string;
beforeEach(() => {
  home = makeTempFolder();
});
afterEach(() => removeTempFolder(home));

/** parseServersFile of one mcpServers object. */
function parse(mcpServers: Record<string, unknown>) {
  return parseServersFile(JSON.stringify({ mcpServers }), 'servers.json');
}

/** The one refusal of a file holding `entry` under `name`. */
function refusalOf(entry: unknown, name = 'bad') {
  const { refused, servers } = parse({ [name]: entry });
  expect(servers).toEqual([]);
  expect(refused).toHaveLength(1);
  return refused[0]!;
}

describe('parseServersFile', () => {
  it('reads stdio and http entries, with the sandbox defaults and comments allowed', () => {
    const text = `{
      // my servers
      "mcpServers": {
        "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"],
                   "env": { "TOKEN": "$ENV.FILES_TOKEN" }, "sandbox": { "writable": ["/home/me/notes"] } },
        "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": { "Authorization": "Bearer $ENV.GITHUB_TOKEN" } },
        "local": { "url": "http://127.0.0.1:8931/mcp" }, /* trailing comma next */
      }
    }`;
    const { servers, refused, disabled } = parseServersFile(text, 'servers.json');
    expect(refused).toEqual([]);
    expect(disabled).toEqual([]);
    expect(servers).toEqual([
      {
        name: 'files',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/notes'],
        env: { TOKEN: '$ENV.FILES_TOKEN' },
        sandbox: { network: false, readable: [], writable: ['/home/me/notes'], env: [] },
      },
      { name: 'github', transport: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer $ENV.GITHUB_TOKEN' } },
      { name: 'local', transport: 'http', url: 'http://127.0.0.1:8931/mcp', headers: {} },
    ]);
  });

  it('a bad entry is refused with its field while the good ones are kept', () => {
    const { servers, refused } = parse({
      good: { command: 'uvx', args: ['mcp-server-git'] },
      numbers: { command: 'node', args: ['server.js', '--port', 8080] },
      other: { url: 'https://mcp.example.com/mcp' },
    });
    expect(servers.map((server) => server.name)).toEqual(['good', 'other']);
    expect(refused).toEqual([{ name: 'numbers', field: 'args.2', message: expect.stringContaining('must be a string') }]);
  });

  it('lists a disabled entry as disabled, not refused, and starts nothing of it', () => {
    const { servers, refused, disabled } = parse({ off: { command: 'npx', args: ['x'], disabled: true } });
    expect({ servers, refused, disabled }).toEqual({ servers: [], refused: [], disabled: ['off'] });
  });

  it.each([
    ['file:', 'file:///etc/passwd', 'file: scheme'],
    ['javascript:', 'javascript:alert(1)', 'javascript: scheme'],
    ['http to a remote host', 'http://mcp.example.com/mcp', 'use https://mcp.example.com/mcp'],
    ['credentials in the URL', 'https://me:secret@mcp.example.com/mcp', 'headers'],
    ['no URL at all', 'mcp.example.com', 'is not a URL'],
  ])('refuses a url with %s', (_label, url, says) => {
    const refused = refusalOf({ url });
    expect(refused.field).toBe('url');
    expect(refused.message).toContain(says);
  });

  it('refuses SSE, naming Streamable HTTP as the fix', () => {
    const refused = refusalOf({ type: 'sse', url: 'https://mcp.example.com/sse' });
    expect(refused).toMatchObject({ field: 'type', message: expect.stringContaining('SSE transport is not supported') });
    expect(refused.message).toContain('Streamable HTTP');
  });

  it.each([['a__b'], ['../etc'], ['1password'], ['trailing_'], ['']])('refuses the server name %j', (name) => {
    expect(refusalOf({ command: 'npx' }, name)).toMatchObject({ name, field: 'name', message: expect.stringContaining('rename') });
  });

  it('refuses a relative sandbox path, naming its index', () => {
    const refused = refusalOf({ command: 'npx', sandbox: { writable: ['/home/me/ok', 'notes'] } });
    expect(refused).toMatchObject({ field: 'sandbox.writable.1', message: expect.stringContaining('absolute path') });
  });

  it('refuses a sandbox variable that is no name, and a list past its limit, naming the field', () => {
    expect(refusalOf({ command: 'npx', sandbox: { env: ['GITHUB_TOKEN', 'A=B'] } })).toMatchObject({ field: 'sandbox.env.1', message: expect.stringContaining('is not an environment variable name') });
    expect(refusalOf({ command: 'npx', sandbox: { env: [''] } })).toMatchObject({ field: 'sandbox.env.0' });
    const folders = Array.from({ length: 65 }, (_, index) => `/srv/f${index}`);
    expect(refusalOf({ command: 'npx', sandbox: { readable: folders } })).toMatchObject({ field: 'sandbox.readable', message: expect.stringContaining('more than 64 folders') });
    expect(parse({ ok: { command: 'npx', sandbox: { readable: folders.slice(1) } } }).refused).toEqual([]);
  });

  it('refuses an unknown field, naming it (a typo never passes silently)', () => {
    expect(refusalOf({ command: 'npx', arg: ['x'] })).toMatchObject({ field: 'arg', message: expect.stringContaining('not a field Toolgate knows') });
    expect(refusalOf({ command: 'npx', sandbox: { netwrok: true } })).toMatchObject({ field: 'sandbox.netwrok' });
    expect(refusalOf({ url: 'https://x.example/mcp', sandbox: {} })).toMatchObject({ field: 'sandbox', message: expect.stringContaining('started by command') });
  });

  it('refuses an entry with neither or both of command and url, an empty command, non-string env and header values', () => {
    expect(refusalOf({ args: ['x'] })).toMatchObject({ field: 'command' });
    expect(refusalOf({ command: 'npx', url: 'https://x.example/mcp' })).toMatchObject({ field: 'url', message: expect.stringContaining('not both') });
    expect(refusalOf({ command: '  ' })).toMatchObject({ field: 'command', message: expect.stringContaining('is empty') });
    expect(refusalOf({ command: 'npx', env: { PORT: 8080 } })).toMatchObject({ field: 'env.PORT', message: expect.stringContaining('must be a string') });
    expect(refusalOf({ url: 'https://x.example/mcp', headers: { 'X-Retries': 3 } })).toMatchObject({ field: 'headers.X-Retries' });
    expect(refusalOf({ command: 'npx', type: 'http' })).toMatchObject({ field: 'type' });
    expect(refusalOf({ command: 'npx', cwd: 'src' })).toMatchObject({ field: 'cwd' });
    expect(refusalOf({ command: 'npx', args: '-y server' })).toMatchObject({ field: 'args', message: expect.stringContaining('write it like "args": ["-y"') });
    expect(refusalOf({ command: 'npx', sandbox: { network: 'yes' } })).toMatchObject({ field: 'sandbox.network', message: expect.stringContaining('"sandbox.network": true') });
  });

  it('refuses a name written twice: neither copy starts', () => {
    const text = '{"mcpServers": {"twin": {"command": "a"}, "twin": {"command": "b"}, "solo": {"command": "c"}}}';
    const { servers, refused } = parseServersFile(text, 'servers.json');
    expect(servers.map((server) => server.name)).toEqual(['solo']);
    expect(refused).toEqual([{ name: 'twin', field: 'name', message: expect.stringContaining('more than once') }]);
  });

  it('throws for text that is not JSON, naming the file, line and column', async () => {
    const error = await gateErrorOf(() => parseServersFile('{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}', '/home/me/.toolgate/servers.json'));
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toContain('/home/me/.toolgate/servers.json is not JSON');
    expect(error.message).toContain('line 4, column 5');
  });

  it('throws for a top-level key other than mcpServers (a misspelt one would hide every server)', () => {
    expect(() => parseServersFile('{"mcpservers": {}}', 'servers.json')).toThrow(/"mcpservers" is not a key/);
  });
});

describe('readServersFile and writeServersFile', () => {
  it('a missing file is no servers', () => {
    expect(readServersFile(home)).toMatchObject({ servers: [], refused: [], disabled: [] });
  });

  it('writes owner-only, atomically, keeping comments and the entries it does not change byte for byte', () => {
    const path = serversFilePath(home);
    const before = [
      '{',
      '  // kept: the person\'s note',
      '  "mcpServers": {',
      '    "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem"] }, // inline note',
      '    "typo": { "comand": "npx" }',
      '  }',
      '}',
      '',
    ].join('\n');
    writeFileSync(path, before, { mode: 0o644 });
    const { entries } = readServersFile(home);
    writeServersFile(home, { mcpServers: { ...entries, git: { command: 'uvx', args: ['mcp-server-git'] } } });
    const after = readFileSync(path, 'utf8');
    expect(after).toContain("// kept: the person's note");
    expect(after).toContain('"files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem"] }, // inline note');
    expect(after).toContain('"typo": { "comand": "npx" }');
    expect(readServersFile(home).servers.map((server) => server.name)).toEqual(['git', 'files']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(home)).toEqual(['servers.json']);
  });

  it('edits a changed entry field by field: its other fields and their comments stay as written', () => {
    const path = serversFilePath(home);
    const before = [
      '{',
      '  "mcpServers": {',
      '    "files": {',
      '      "command": "npx", // from npm',
      '      "args": ["-y", "@modelcontextprotocol/server-filesystem"], /* its folder comes later */',
      '      "sandbox": { "network": false, "writable": ["/srv/a"] }',
      '    }',
      '  }',
      '}',
      '',
    ].join('\n');
    writeFileSync(path, before);
    const files = readServersFile(home).entries.files as Record<string, unknown>;
    writeServersFile(home, { mcpServers: { files: { ...files, sandbox: { network: false, writable: ['/srv/b'] } } } });
    const after = readFileSync(path, 'utf8');
    expect(after).toContain('"command": "npx", // from npm\n      "args": ["-y", "@modelcontextprotocol/server-filesystem"], /* its folder comes later */\n      "sandbox": { "network": false, "writable": [');
    expect(readServersFile(home).servers[0]).toMatchObject({ sandbox: { network: false, writable: ['/srv/b'] } });
  });

  it('refuses to write an added entry that would be refused, changing nothing', () => {
    mkdirSync(home, { recursive: true });
    writeServersFile(home, { mcpServers: { ok: { command: 'npx' } } });
    const before = readFileSync(serversFilePath(home), 'utf8');
    expect(() => writeServersFile(home, { mcpServers: { ok: { command: 'npx' }, web: { url: 'http://example.com/mcp' } } })).toThrow(/was not changed: web url: plain http/);
    expect(readFileSync(serversFilePath(home), 'utf8')).toBe(before);
  });
});
