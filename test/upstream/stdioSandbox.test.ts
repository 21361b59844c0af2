import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamSandboxSchema } from '../../shared/upstream';
import { processTree } from '../../main/hosts/processTree';
import { detectSandbox } from '../../main/hosts/sandbox';
import { upstreamEnvironment, upstreamSandboxArguments } from '../../main/upstream/stdioSandbox';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { WAIT_MS } from '../fixtures/processes';
import { Connections, FIXTURE, TEST_READABLE, firstText, fixtureConfig, scriptConfig } from './helpers';

const options = { timeoutMs: WAIT_MS, maxResultBytes: 1024 * 1024 };
const SECRET = 'secret-value-0123456789';

describe('the sandbox arguments and environment of a stdio server', () => {
  const sandbox = UpstreamSandboxSchema.parse({ env: ['EDITOR', 'TOOLGATE_HOME'] });

  it('cuts the network unless asked, and hides the state folder after every binding', () => {
    const root = makeTempFolder();
    const state = join(root, 'state');
    mkdirSync(state);
    try {
      const args = upstreamSandboxArguments({ ...sandbox, readable: [root], writable: [root] }, state, true);
      expect(args).toContain('--unshare-net');
      expect(args.slice(-2)).toEqual(['--tmpfs', state]);
      expect(args.join(' ')).not.toMatch(/--setenv/);
      expect(upstreamSandboxArguments({ ...sandbox, network: true }, state, true)).not.toContain('--unshare-net');
    } finally {
      removeTempFolder(root);
    }
  });

  it('passes PATH, HOME, LANG and the named variables only, never a TOOLGATE_ one', () => {
    const env = upstreamEnvironment('s', sandbox, { API: 'x' }, { PATH: '/bin', HOME: '/h', LANG: 'C', EDITOR: 'vi', TOOLGATE_HOME: '/state', AWS_SECRET_ACCESS_KEY: 'k' });
    expect(env).toEqual({ PATH: '/bin', HOME: '/h', LANG: 'C', EDITOR: 'vi', API: 'x' });
  });

  it('refuses an env entry that sets one of the gate’s own variables', () => {
    expect(() => upstreamEnvironment('s', sandbox, { TOOLGATE_MCP_TOKEN: 'x' })).toThrow(/s: env\.TOOLGATE_MCP_TOKEN is one of the gate's own settings/);
  });
});

describe('a stdio server runs bare without a sandbox', () => {
  const home = makeTempFolder();
  const connections = new Connections({ home, resolveSecret: async () => SECRET });
  afterAll(async () => {
    await connections.closeAll();
    removeTempFolder(home);
  });

  it('still with only the allowed environment, and says it is not sandboxed', async () => {
    process.env.TOOLGATE_MCP_TOKEN = 'agents-token';
    const connection = connections.make(fixtureConfig('normal', { env: { AUTH: 'Bearer $ENV.API_TOKEN' } }));
    await connection.start();
    const seen = JSON.parse(firstText(await connection.call('probe', {}, options))) as { env: Record<string, string> };
    expect(Object.keys(seen.env).filter((name) => !['PATH', 'HOME', 'LANG'].includes(name))).toEqual(['AUTH']);
    expect(seen.env.AUTH).toBe(`Bearer ${SECRET}`);
    expect(connection.state().detail).toMatch(/runs without a sandbox: not needed by this test/);
    delete process.env.TOOLGATE_MCP_TOKEN;
  });
});

describe.skipIf(detectSandbox('auto').kind === 'none')('a stdio server in bubblewrap', () => {
  const sandboxInfo = detectSandbox('auto');
  const root = makeTempFolder();
  const shared = join(root, 'shared');
  const home = join(shared, 'state');
  const writable = join(root, 'writable');
  const readOnly = join(root, 'read-only');
  const connections = new Connections({ home, resolveSecret: async (name) => (name === 'API_TOKEN' ? SECRET : undefined), sandbox: sandboxInfo });
  let listener: Server;
  let port: number;

  beforeAll(async () => {
    for (const folder of [home, writable, readOnly]) mkdirSync(folder, { recursive: true });
    writeFileSync(join(home, 'mcp-token'), 'the agents token');
    writeFileSync(join(shared, 'notes.txt'), 'readable');
    listener = createServer((socket) => socket.end());
    await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done));
    port = (listener.address() as { port: number }).port;
  });
  afterEach(() => connections.closeAll());
  afterAll(() => {
    listener.close();
    removeTempFolder(root);
  });

  async function probe(sandbox: object, args: Record<string, unknown>, env: Record<string, string> = {}) {
    const connection = connections.make(fixtureConfig('normal', { sandbox: { readable: [shared, readOnly], writable: [writable], ...sandbox }, env }));
    await connection.start();
    expect(connection.state().detail).toMatch(/runs in bubblewrap/);
    return JSON.parse(firstText(await connection.call('probe', args, options))) as { env: Record<string, string>; read?: boolean; wrote?: boolean; connected?: boolean };
  }

  it('says which of its folders do not exist and were not mounted', async () => {
    const connection = connections.make(fixtureConfig('normal', { sandbox: { writable: [join(root, 'no-such-folder')] } }));
    await connection.start();
    expect(connection.state().detail).toMatch(/not mounted, as they do not exist: .*no-such-folder/);
  });

  it('cannot read the state folder even inside a readable folder, but reads the rest of that folder', async () => {
    expect(await probe({}, { readFile: join(home, 'mcp-token') })).toMatchObject({ read: false });
    expect(await probe({}, { readFile: join(shared, 'notes.txt') })).toMatchObject({ read: true });
  });

  it('writes inside its writable folders and nowhere else', async () => {
    expect(await probe({}, { writeFolder: writable })).toMatchObject({ wrote: true });
    expect(readFileSync(join(writable, 'probe.txt'), 'utf8')).toBe('written from the sandbox');
    expect(await probe({}, { writeFolder: readOnly })).toMatchObject({ wrote: false });
    expect(await probe({}, { writeFolder: resolve('.') })).toMatchObject({ wrote: false });
    expect(existsSync(join(readOnly, 'probe.txt'))).toBe(false);
  });

  it('cannot reach a loopback listener of the host unless its network is on', async () => {
    expect(await probe({}, { port })).toMatchObject({ connected: false });
    expect(await probe({ network: true }, { port })).toMatchObject({ connected: true });
  });

  it('sees no TOOLGATE_ variable nor any variable it was not given, and its secrets resolved', async () => {
    process.env.TOOLGATE_MCP_TOKEN = 'agents-token';
    process.env.UNRELATED_SECRET = 'not for servers';
    process.env.EDITOR_FOR_TEST = 'vi';
    try {
      const { env } = await probe({ env: ['EDITOR_FOR_TEST', 'TOOLGATE_MCP_TOKEN'] }, {}, { WHOLE: '$ENV.API_TOKEN', AUTH: 'Bearer $ENV.API_TOKEN' });
      // PWD is bubblewrap's own: the folder the server starts in.
      const expected = ['AUTH', 'EDITOR_FOR_TEST', 'HOME', 'PATH', 'PWD', 'WHOLE', ...(process.env.LANG ? ['LANG'] : [])].sort();
      expect(Object.keys(env).sort()).toEqual(expected);
      expect(env).toMatchObject({ WHOLE: SECRET, AUTH: `Bearer ${SECRET}`, EDITOR_FOR_TEST: 'vi' });
    } finally {
      delete process.env.TOOLGATE_MCP_TOKEN;
      delete process.env.UNRELATED_SECRET;
      delete process.env.EDITOR_FOR_TEST;
    }
  });

  it('hides a secret the server prints on stderr from the crash message', async () => {
    const connection = connections.make(scriptConfig('leaky', 'console.error("token is " + process.env.TOKEN); process.exit(1)', { TOKEN: '$ENV.API_TOKEN' }));
    const error = (await connection.start().catch((caught: unknown) => caught)) as Error;
    expect(error.message).toMatch(/token is \$ENV\.API_TOKEN/);
    expect(error.message).not.toContain(SECRET);
  });

  it('leaves no process behind once closed', async () => {
    const connection = connections.make(fixtureConfig('normal', { sandbox: {} }));
    await connection.start();
    const fixtures = () => processTree(process.pid).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(FIXTURE));
    expect(fixtures().length).toBeGreaterThan(0);
    await connection.close();
    expect(fixtures()).toEqual([]);
  });

  it('serves the real filesystem server: writes inside its folder, and the sandbox stops it writing a folder it only reads', async () => {
    const server = resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
    const connection = connections.make({
      name: 'files',
      transport: 'stdio',
      command: process.execPath,
      args: [server, writable, readOnly],
      env: {},
      sandbox: UpstreamSandboxSchema.parse({ writable: [writable], readable: [...TEST_READABLE, readOnly] }),
    });
    await connection.start();
    expect(connection.tools().map((tool) => tool.name)).toEqual(expect.arrayContaining(['read_text_file', 'write_file', 'list_directory']));
    expect(await connection.call('write_file', { path: join(writable, 'hello.txt'), content: 'hello' }, options)).toMatchObject({ ok: true, isError: false });
    expect(readFileSync(join(writable, 'hello.txt'), 'utf8')).toBe('hello');
    // The server itself allows readOnly (it was given it); only the sandbox stands in the way.
    const outside = await connection.call('write_file', { path: join(readOnly, 'escape.txt'), content: 'escaped' }, options);
    expect(outside).toMatchObject({ ok: true, isError: true, content: [{ text: expect.stringMatching(/read-only file system|EROFS/i) }] });
    expect(existsSync(join(readOnly, 'escape.txt'))).toBe(false);
  });
});
