import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { UpstreamSandboxSchema, type UpstreamServerConfig } from '../../shared/upstream';
import { detectSandbox } from '../../main/hosts/sandbox';
import { ToolRegistry } from '../../main/registry/registry';
import { launchHash, pinHash } from '../../main/upstream/definitionPin';
import { argumentValidator } from '../../main/upstream/inputValidation';
import { suggestedClass, unreviewedTier } from '../../main/upstream/suggestedClass';
import type { ReviewStore } from '../../main/upstream/types';
import { launchText } from '../../main/upstream/upstreamCallViews';
import { UpstreamGateway } from '../../main/upstream/upstreamGateway';
import { stdioLaunch, upstreamSandboxArguments } from '../../main/upstream/stdioSandbox';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { WAIT_MS } from '../fixtures/processes';
import { Connections, eventually, firstText, fixtureConfig } from './helpers';

const options = { timeoutMs: WAIT_MS, maxResultBytes: 1024 * 1024 };

/** Connections to servers run bare (no sandbox), with a state folder of their own, closed after the describe. */
function bareConnections(): Connections {
  const home = makeTempFolder();
  const connections = new Connections({ home, resolveSecret: async () => undefined });
  afterAll(async () => {
    await connections.closeAll();
    removeTempFolder(home);
  });
  return connections;
}

describe('a server whose schema would stall the gate', () => {
  const search = argumentValidator({
    name: 'search',
    inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } }, patternProperties: { '^(x+x+)+y$': { type: 'string' } } },
  });

  it('has a call whose argument makes its pattern backtrack refused within the budget, saying why', () => {
    for (const args of [{ q: `${'a'.repeat(40)}!` }, { [`${'x'.repeat(40)}`]: 'v' }]) {
      // The watchdog's refusal, naming its budget: without it the check would run for minutes.
      expect(search(args)).toMatch(/^\/: the server's inputSchema took over 250 ms to check these arguments \(a "pattern" that backtracks, most likely\), so the call was refused/);
    }
  });

  it('still checks its patterns as JSON Schema says (unicode), and the gate answers the next call', () => {
    expect(search({ q: 'aaa' })).toBeUndefined();
    expect(search({ q: 'ab' })).toBe('/q: must match pattern "^(a+)+$"');
    const names = argumentValidator({ name: 'names', inputSchema: { type: 'object', properties: { n: { type: 'string', pattern: '^[\\p{L} ]{1,100}$' } } } });
    expect(names({ n: 'Zoë Ünal' })).toBeUndefined();
    expect(names({ n: 'R2-D2' })).toBe('/n: must match pattern "^[\\p{L} ]{1,100}$"');
  });
});

describe('a server whose schema costs more than its size: shared subschemas and pairwise checks', () => {
  /** Each level tries a branch that checks the whole subtree, then fails at `b`; the other checks it again: 2^depth. */
  const doubling = argumentValidator({
    name: 'tree',
    inputSchema: {
      type: 'object',
      properties: { t: { $ref: '#/$defs/node' } },
      $defs: {
        node: {
          anyOf: [
            { type: 'object', properties: { a: { $ref: '#/$defs/node' }, b: { type: 'string' } } },
            { type: 'object', properties: { a: { $ref: '#/$defs/node' } } },
          ],
        },
      },
    },
  });
  const pairs = argumentValidator({ name: 'pairs', inputSchema: { type: 'object', properties: { items: { type: 'array', uniqueItems: true } } } });

  // Both arguments are small (under 100 KB): by size alone they would be checked without the
  // watchdog, which only their schemas' keywords ($ref, uniqueItems) call in.
  it('has a call whose 300-byte argument takes 2^24 checks refused within the budget', () => {
    let tree: Record<string, unknown> = { b: 1 };
    for (let level = 0; level < 24; level++) tree = { a: tree, b: 1 };
    expect(doubling({ t: tree })).toMatch(/took over 250 ms to check these arguments/);
    // A shallow tree is checked as usual.
    expect(doubling({ t: { a: { b: 'x' } } })).toBeUndefined();
  });

  it('has a call with 12,000 distinct items under uniqueItems (72 million pairs compared) refused within the budget', () => {
    const items = Array.from({ length: 12_000 }, (_, i) => [i]);
    expect(pairs({ items })).toMatch(/took over 250 ms/);
    expect(pairs({ items: [{ a: 1 }, { a: 1 }] })).toMatch(/must NOT have duplicate items/);
    expect(pairs({ items: [{ a: 1 }, { a: 2 }] })).toBeUndefined();
  });
});

describe('a server flooding notifications/tools/list_changed', () => {
  const connections = bareConnections();

  it('costs the gate two lists, and the list it keeps is the newest, not one that answered late', async () => {
    const connection = connections.make(fixtureConfig('list-flood'));
    await connection.start();
    expect(firstText(await connection.call('flood', {}, options))).toBe('flooded');
    await eventually(() => connection.tools().some((tool) => tool.name === 'version_3'));
    // Time for any fetch still running (the late one takes 500 ms) to land.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(connection.tools().map((tool) => tool.name)).toEqual(['flood', 'version_3']);
  });
});

describe('a servers.json entry reaching past the sandbox', () => {
  const root = makeTempFolder();
  const parent = join(root, 'parent');
  const home = join(parent, 'state');
  const toState = join(root, 'to-state');
  const toParent = join(root, 'to-parent');
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'mcp-token'), 'the agents token');
  writeFileSync(join(parent, 'notes.txt'), 'readable');
  symlinkSync(home, toState);
  symlinkSync(parent, toParent);
  afterAll(() => removeTempFolder(root));

  const sandbox = (fields: object) => UpstreamSandboxSchema.parse(fields);

  it('refuses a readable or writable folder that is the state folder through a symlink, or inside it', () => {
    expect(() => upstreamSandboxArguments(sandbox({ readable: [toState] }), home, true)).toThrow(/sandbox\.readable names .*to-state, which is Toolgate's state folder .* or inside it/);
    expect(() => upstreamSandboxArguments(sandbox({ writable: [join(toParent, 'state')] }), home, true)).toThrow(/sandbox\.writable names .*Toolgate's state folder/);
  });

  it('hides the state folder inside a folder bound through a symlink, where it is bound', () => {
    const args = upstreamSandboxArguments(sandbox({ readable: [toParent] }), home, true).join(' ');
    expect(args).toContain(`--ro-bind ${toParent} ${toParent}`);
    expect(args).toContain(`--tmpfs ${join(toParent, 'state')}`);
    expect(args).toContain(`--tmpfs ${home}`);
  });

  it('sets the variables that steer the dynamic loader inside the sandbox, never on bubblewrap itself', () => {
    const launch = stdioLaunch(
      { name: 's', command: 'node', args: ['server.js'], sandbox: sandbox({}) },
      { PATH: '/bin', LD_PRELOAD: '/home/me/evil.so', GCONV_PATH: '/home/me/gconv', API: 'x' },
      home,
      { kind: 'bubblewrap', command: 'bwrap', version: 'test' },
    );
    expect(launch.env).toEqual({ PATH: '/bin', API: 'x' });
    const end = launch.args.indexOf('--');
    expect(launch.args.slice(0, end).join(' ')).toContain('--setenv LD_PRELOAD /home/me/evil.so --setenv GCONV_PATH /home/me/gconv');
    expect(launch.args.slice(end)).toEqual(['--', 'node', 'server.js']);
  });

  describe.skipIf(detectSandbox('auto').kind === 'none')('run in bubblewrap', () => {
    const connections = new Connections({ home, resolveSecret: async () => undefined, sandbox: detectSandbox('auto') });
    afterEach(() => connections.closeAll());

    async function probe(fields: object, args: Record<string, unknown>, env: Record<string, string> = {}) {
      const connection = connections.make(fixtureConfig('normal', { sandbox: fields, env }));
      await connection.start();
      return JSON.parse(firstText(await connection.call('probe', args, options))) as { env: Record<string, string>; read?: boolean; reachedSocket?: boolean };
    }

    it('cannot read the token through a symlink to the folder holding the state folder', async () => {
      expect(await probe({ readable: [toParent] }, { readFile: join(toParent, 'state', 'mcp-token') })).toMatchObject({ read: false });
      expect(await probe({ readable: [toParent] }, { readFile: join(toParent, 'notes.txt') })).toMatchObject({ read: true });
    });

    it('does not start with the state folder named through a symlink, and says why', async () => {
      const connection = connections.make(fixtureConfig('normal', { sandbox: { readable: [toState] } }));
      await expect(connection.start()).rejects.toThrow(/^sandbox\.readable names .*state folder/);
    });

    it('still gives the server the loader variables of its env', async () => {
      const { env } = await probe({}, {}, { LD_LIBRARY_PATH: '/nonexistent-libs' });
      expect(env.LD_LIBRARY_PATH).toBe('/nonexistent-libs');
    });
  });
});

describe('a server asking the gate for sampling, elicitation or roots', () => {
  const connections = bareConnections();

  it('is refused each time: no request reaches the agent’s model or the person', async () => {
    const connection = connections.make(fixtureConfig('asks-client'));
    await connection.start();
    const seen = JSON.parse(firstText(await connection.call('reach', {}, options))) as Record<string, string>;
    expect(seen.sampling).toMatch(/^refused: /);
    expect(seen.elicitation).toMatch(/^refused: /);
    expect(seen.roots).toMatch(/^refused: /);
  });
});

/** Whether this test may make a folder in /run, where the host's services put their sockets. */
function runWritable(): boolean {
  try {
    accessSync('/run', constants.W_OK);
    return detectSandbox('auto').kind !== 'none';
  } catch {
    return false;
  }
}

describe.skipIf(!runWritable())('a server reaching the host’s services through Unix sockets', () => {
  const home = makeTempFolder();
  const connections = new Connections({ home, resolveSecret: async () => undefined, sandbox: detectSandbox('auto') });
  const run = mkdtempSync('/run/toolgate-test-');
  const path = join(run, 'bus');
  let service: Server;
  afterEach(() => connections.closeAll());
  afterAll(() => {
    service.close();
    rmSync(run, { recursive: true, force: true });
    removeTempFolder(home);
  });

  it('cannot connect to a service’s socket under /run with its network off', async () => {
    service = createServer((socket) => socket.end('hello'));
    await new Promise<void>((done) => service.listen(path, done));
    const connection = connections.make(fixtureConfig('normal'));
    await connection.start();
    const seen = JSON.parse(firstText(await connection.call('probe', { socket: path }, options))) as { reachedSocket: boolean };
    expect(seen.reachedSocket).toBe(false);
  });

  it('with its network on keeps /run, where name resolution may live, hiding only the services in it', () => {
    const on = upstreamSandboxArguments(UpstreamSandboxSchema.parse({ network: true }), home, true).join(' ');
    expect(on).not.toMatch(/--tmpfs \/run( |$)/);
    expect(upstreamSandboxArguments(UpstreamSandboxSchema.parse({}), home, true).join(' ')).toMatch(/--tmpfs \/run( |$)/);
  });
});

describe('a servers.json entry whose command line reads harmless', () => {
  const stdio: UpstreamServerConfig = {
    name: 'github',
    transport: 'stdio',
    command: 'npx',
    args: ['-y', '@modelcontextprotocol/server-github'],
    env: { NODE_OPTIONS: '--require /home/me/Downloads/x.js', GITHUB_TOKEN: '$ENV.GITHUB_TOKEN', AWS_SECRET_ACCESS_KEY: '$ENV.AWS_KEY' },
    cwd: '/home/me/some where',
    sandbox: UpstreamSandboxSchema.parse({ env: ['SSH_AUTH_SOCK'] }),
  };

  it('is approved as all it runs with: its folder, its variables and the secrets they name, in the console and the terminal', async () => {
    const shown = "cd '/home/me/some where' && NODE_OPTIONS='--require /home/me/Downloads/x.js' GITHUB_TOKEN='$ENV.GITHUB_TOKEN' AWS_SECRET_ACCESS_KEY='$ENV.AWS_KEY' npx -y @modelcontextprotocol/server-github";
    expect(launchText(stdio)).toBe(shown);
    const registry = new ToolRegistry();
    const upstream = new UpstreamGateway(
      { registry, workspace: '/', file: 'servers.json', servers: [stdio], refused: [], sandboxed: true },
      {
        connect: () => {
          throw new Error('never started: its launch was not approved');
        },
        reviews: { approvedLaunch: () => undefined } as unknown as ReviewStore,
        pinHash,
        launchHash,
        findings: () => [],
        suggestedClass,
        unreviewedTier,
        validator: argumentValidator,
      },
    );
    expect(upstream.server('github')).toMatchObject({ launch: shown, launchApproved: false });
  });

  it('reached over http, is approved with the headers sent to it', () => {
    const http: UpstreamServerConfig = { name: 'remote', transport: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer $ENV.GITHUB_TOKEN' } };
    expect(launchText(http)).toBe("https://mcp.example.com/mcp with headers 'Authorization: Bearer $ENV.GITHUB_TOKEN'");
  });
});

describe('a servers.json entry binding what the sandbox makes its own', () => {
  const home = makeTempFolder();
  afterAll(() => removeTempFolder(home));

  it('refuses the whole root, /proc (and inside it), /dev, /tmp and /run, naming the field and the fix', () => {
    for (const [field, path] of [['readable', '/'], ['writable', '/'], ['readable', '/proc'], ['readable', '/proc/self/root'], ['readable', '/dev'], ['writable', '/tmp'], ['readable', '/run']] as const) {
      expect(() => upstreamSandboxArguments(UpstreamSandboxSchema.parse({ [field]: [path] }), home, true)).toThrow(
        new RegExp(`^sandbox\\.${field} names ${path.replaceAll('/', '\\/')}, which the sandbox makes its own: .*name the folders the server needs instead`),
      );
    }
  });

  describe.skipIf(detectSandbox('auto').kind === 'none')('run in bubblewrap', () => {
    const connections = new Connections({ home, resolveSecret: async () => undefined, sandbox: detectSandbox('auto') });
    afterEach(() => connections.closeAll());

    it('does not start with readable "/", which would show the gate’s /proc/PID/root and through it the token', async () => {
      writeFileSync(join(home, 'mcp-token'), 'the agents token');
      const connection = connections.make(fixtureConfig('normal', { sandbox: { readable: ['/'] } }));
      await expect(connection.start()).rejects.toThrow(/sandbox\.readable names \/, which the sandbox makes its own/);
    });
  });
});

describe('a server flooding its caller with progress', () => {
  const connections = bareConnections();

  it('reaches the agent in a burst of ten, then at most ten times a second, each message cut to 200 characters', async () => {
    const connection = connections.make(fixtureConfig('progress-flood'));
    await connection.start();
    const heard: { progress: number; message?: string }[] = [];
    const started = Date.now();
    const outcome = await connection.call('flood', {}, { ...options, onProgress: (progress) => heard.push(progress) });
    expect(firstText(outcome)).toBe('flooded');
    expect(heard.length).toBeGreaterThan(0);
    // A burst of ten, one per 100 ms after it, and the last one held back, passed on before the result.
    expect(heard.length).toBeLessThanOrEqual(10 + Math.ceil((Date.now() - started) / 100) + 1);
    expect(Math.max(...heard.map((progress) => progress.message?.length ?? 0))).toBeLessThanOrEqual(200);
  });
});

describe('a server whose tools/list never ends', () => {
  const connections = bareConnections();

  it('is read only until its list passes the tools the gate takes; the rest is refused unread', async () => {
    const connection = connections.make(fixtureConfig('endless-pages'), { limits: { maxTools: 512 } });
    await connection.start();
    expect(firstText(await connection.call('pages', {}, options))).toBe('2');
    expect(connection.tools()).toHaveLength(512);
    expect(connection.state().refused[0]?.message).toMatch(/the gate takes the first 512/);
  });
});
