/**
 * Toolgate tried from the outside, as a new user and a hostile agent would: a real `toolgate serve`
 * child process, the official MCP client with the bearer token, the console's WebSocket bridge to
 * answer prompts, and hostile or sloppy input for the built-in tools. Each test states what the
 * agent and the person should see; the gate must answer the next call afterwards.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import { BridgeClient, connectMcp, makeTempDirs, readConsoleToken, readToken, spawnServe, textOf, type ServeProcess, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

/** A `toolgate serve` child with an agent and a console connected to it. */
interface OutsideGate {
  dirs: TempDirs;
  serve: ServeProcess;
  agent: Client;
  console: BridgeClient;
  close(): Promise<void>;
}

async function startOutsideGate(prepare: (dirs: TempDirs) => void = () => {}, extraArgs: string[] = []): Promise<OutsideGate> {
  const dirs = makeTempDirs();
  prepare(dirs);
  const serve = await spawnServe(dirs, extraArgs);
  const token = readToken(dirs.home);
  const agent = await connectMcp(serve.mcpUrl, token);
  const bridge = await BridgeClient.open(serve.port, readConsoleToken(dirs.home));
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      bridge.close();
      await agent.close();
      await serve.stop();
      dirs.remove();
    })());
  return { dirs, serve, agent, console: bridge, close };
}

/** Calls a tool as the agent; `timeoutMs` is the agent's own patience. */
function callTool(gate: OutsideGate, name: string, args: unknown, timeoutMs = WAIT_MS): Promise<CallToolResult> {
  return gate.agent.callTool({ name, arguments: args as Record<string, unknown> }, undefined, { timeout: timeoutMs }) as Promise<CallToolResult>;
}

/** The error code the gate put on a result. */
function codeOf(result: CallToolResult): unknown {
  return result._meta?.['toolgate/errorCode'];
}

/** Prompts already answered: the console keeps every event it saw. */
const answered = new Set<string>();

/** Calls a tool and answers its prompt at the console; resolves with the prompt the person saw and the result. */
async function callAnswering(
  gate: OutsideGate,
  name: string,
  args: unknown,
  decision: 'approve' | 'deny',
): Promise<{ prompt: ApprovalRequest; result: CallToolResult }> {
  const call = callTool(gate, name, args);
  const prompt = (await gate.console.waitForEvent(
    'approvalRequested',
    (request: ApprovalRequest) => request.tool === name && !answered.has(request.approvalId),
  )) as ApprovalRequest;
  answered.add(prompt.approvalId);
  await gate.console.request('decideApproval', { approvalId: prompt.approvalId, decision, reason: 'outside-in test' });
  return { prompt, result: await call };
}

async function expectAlive(gate: OutsideGate): Promise<void> {
  expect(textOf(await callTool(gate, 'echo', { text: 'still here' }))).toBe('{"text":"still here"}');
}

/** A chain of `depth` nested folders named d, with a file at the bottom. */
function nestedFolders(root: string, depth: number): void {
  const bottom = join(root, ...new Array<string>(depth).fill('d'));
  mkdirSync(bottom, { recursive: true });
  writeFileSync(join(bottom, 'deep.txt'), 'needle\n');
}

describe('file tools stay in the workspace, whatever the agent sends', () => {
  let gate: OutsideGate;
  beforeAll(async () => {
    gate = await startOutsideGate((dirs) => {
      writeFileSync(join(dirs.outside, 'secret.txt'), 'TOPSECRET\n');
      writeFileSync(join(dirs.workspace, 'notes.txt'), 'one\ntwo\n');
      symlinkSync(join(dirs.outside, 'secret.txt'), join(dirs.workspace, 'link.txt'));
      symlinkSync('/proc/self/environ', join(dirs.workspace, 'environ'));
      execFileSync('mkfifo', [join(dirs.workspace, 'pipe')]);
      mkdirSync(join(dirs.workspace, '.git/hooks'), { recursive: true });
      mkdirSync(join(dirs.workspace, 'sub'));
    });
  });
  afterAll(() => gate?.close());

  it('read_file refuses .., absolute paths, symlinks out and /proc with EPERMISSION, and a FIFO at once', async () => {
    for (const path of ['../outside/secret.txt', join(gate.dirs.outside, 'secret.txt'), 'link.txt', 'environ', '/proc/self/environ']) {
      const result = await callTool(gate, 'read_file', { path });
      expect(result.isError, path).toBe(true);
      expect(codeOf(result), path).toBe('EPERMISSION');
      expect(textOf(result)).not.toContain('TOPSECRET');
    }
    // Refused by its kind (an open would block until the tool's deadline and end in ETIMEOUT).
    const fifo = await callTool(gate, 'read_file', { path: 'pipe' });
    expect(codeOf(fifo)).toBe('EVALIDATION');
    await expectAlive(gate);
  });

  it('protected paths spelled oddly are refused before anyone is asked, and nothing is written', async () => {
    for (const path of ['.GIT/config', './.git/hooks/x', 'sub/../.git/hooks/x', '.git\\hooks\\x', '.git/', '.Vscode/tasks.json', '.MCP.JSON']) {
      const result = await callTool(gate, 'write_file', { path, content: '#!/bin/sh\necho pwned\n' });
      expect(codeOf(result), path).toBe('EPERMISSION');
      expect(textOf(result), path).toMatch(/rule protected:/);
    }
    await expect(gate.console.waitForEvent('approvalRequested', (request) => request.tool === 'write_file', 200)).rejects.toThrow(/no approvalRequested/);
    expect(readdirSync(join(gate.dirs.workspace, '.git/hooks'))).toEqual([]);
    expect(existsSync(join(gate.dirs.workspace, '.vscode'))).toBe(false);
  });

  it('delete_path refuses the workspace root however it is spelled', async () => {
    for (const path of ['.', './', 'sub/..', gate.dirs.workspace, `${gate.dirs.workspace}/`]) {
      const result = await callTool(gate, 'delete_path', { path, recursive: true });
      expect(codeOf(result), path).toBe('EPERMISSION');
    }
    expect(existsSync(join(gate.dirs.workspace, 'notes.txt'))).toBe(true);
  });

  it('an argument holding a lone surrogate is refused as invalid input, not reported as a crash', async () => {
    // "\ud800" is valid JSON and a valid JavaScript string, but not well-formed Unicode.
    for (const [name, args] of [
      ['echo', { text: 'a\ud800b' }],
      ['read_file', { path: 'x\ud800' }],
      ['write_file', { path: 'ok.txt', content: 'x\ud800y' }],
    ] as const) {
      const result = await callTool(gate, name, args);
      expect(result.isError, name).toBe(true);
      expect(codeOf(result), `${name}: ${textOf(result)}`).toBe('EVALIDATION');
    }
    expect(existsSync(join(gate.dirs.workspace, 'ok.txt'))).toBe(false);
    await expectAlive(gate);
  });
});

// One gate for these: each case has a folder of its own, with its own .gitignore where it needs one.
describe('a hostile repository or regex cannot stall the read-only tools', () => {
  let gate: OutsideGate;
  beforeAll(async () => {
    gate = await startOutsideGate((dirs) => {
      const folder = (name: string) => (mkdirSync(join(dirs.workspace, name)), join(dirs.workspace, name));
      const repeats = folder('repeats');
      nestedFolders(repeats, 9);
      writeFileSync(join(repeats, '.gitignore'), `${'**/'.repeat(40)}x\n`);
      writeFileSync(join(repeats, 'd', 'x'), '');
      const alternates = folder('alternates');
      writeFileSync(join(alternates, '.gitignore'), `${'*a'.repeat(30)}*b\n`);
      writeFileSync(join(alternates, 'a'.repeat(80)), '');
      writeFileSync(join(alternates, `${'a'.repeat(30)}b`), '');
      const globbed = folder('globbed');
      nestedFolders(globbed, 9);
      writeFileSync(join(globbed, 'd/d/d/d/d/d/d/d/d/other.txt'), 'needle\n');
      writeFileSync(join(folder('regex'), 'long.txt'), `${'a'.repeat(9_000)}\n`);
    });
  });
  afterAll(() => gate?.close());

  it('list_dir answers promptly in a repository whose .gitignore repeats **/', async () => {
    // git reads this pattern in microseconds; a listing still backtracking would end at the tool's
    // 30 s deadline in ETIMEOUT, an error.
    const result = await callTool(gate, 'list_dir', { path: 'repeats', depth: 10 });
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain('d/d/d/d/d/d/d/d/d/deep.txt');
    // The pattern was read and applied: the file it names is hidden.
    expect(textOf(result)).not.toMatch(/d\/x\b/);
  });

  it('list_dir answers promptly in a repository whose .gitignore alternates * and letters', async () => {
    const result = await callTool(gate, 'list_dir', { path: 'alternates' });
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain('a'.repeat(80));
    expect(textOf(result)).not.toContain(`${'a'.repeat(30)}b`);
  });

  it('search_files answers promptly for an include glob that repeats **/', async () => {
    const result = await callTool(gate, 'search_files', { query: 'needle', path: 'globbed', include: [`${'**/'.repeat(40)}deep.txt`] });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ matches: [expect.objectContaining({ path: 'globbed/d/d/d/d/d/d/d/d/d/deep.txt' })] });
    expect(result.structuredContent).toMatchObject({ filesSearched: 1 });
  });

  it('search_files answers promptly for regexes that backtrack exponentially on a long line', async () => {
    // Nested quantifiers such as (a+)+ are refused outright; these alternations pass that check.
    for (const query of ['(a|aa)*b', '(a|a)*$x']) {
      // A search still backtracking would end at the tool's deadline in ETIMEOUT, an error.
      const result = await callTool(gate, 'search_files', { query, path: 'regex', regex: true });
      expect(result.isError, `${query}: ${textOf(result)}`).toBe(false);
      expect(result.structuredContent).toMatchObject({ matches: [] });
    }
  });
});

describe('calculator reads numbers, and only numbers', () => {
  let gate: OutsideGate;
  beforeAll(async () => {
    gate = await startOutsideGate();
  });
  afterAll(() => gate?.close());

  it('refuses overflow, hex and non-ASCII digits with EVALIDATION', async () => {
    for (const expression of ['1e309', '2^1024', '0x10', '١٢', '１２', `${'('.repeat(300)}1${')'.repeat(300)}`]) {
      const result = await callTool(gate, 'calculator', { expression });
      expect(codeOf(result), expression).toBe('EVALIDATION');
    }
    await expectAlive(gate);
  });

  it('reads a long decimal as a number', async () => {
    const expression = `0.${'3'.repeat(450)}`; // 452 characters, well under the 1000 allowed
    const result = await callTool(gate, 'calculator', { expression });
    expect(textOf(result)).not.toMatch(/is not a number/);
    expect(result.structuredContent).toMatchObject({ value: expect.closeTo(1 / 3, 12) });
  });
});

describe('http_fetch against hostile addresses and servers', () => {
  let server: Server;
  let port: number;
  const hits: string[] = [];
  beforeAll(async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x41), { level: 9 });
    server = createServer((request, response) => {
      hits.push(request.url ?? '');
      if (request.url === '/bomb') return response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(bomb);
      if (request.url === '/trickle') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => response.write('x'), 500);
        response.on('close', () => clearInterval(timer));
        return;
      }
      if (request.url === '/nested') {
        return response.writeHead(200, { 'content-type': 'text/html' }).end(`${'<div>'.repeat(100_000)}deep${'</div>'.repeat(100_000)}`);
      }
      response.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
    });
    await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', () => resolveListen()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('loopback in any spelling is refused without a grant, and nothing reaches the server', async () => {
    const gate = await startOutsideGate();
    try {
      for (const host of ['127.0.0.1', '0x7f000001', '2130706433', '127.1', '[::ffff:127.0.0.1]', '[::1]', 'localhost.', 'LOCALHOST', '0.0.0.0']) {
        const result = await callTool(gate, 'http_fetch', { url: `http://${host}:${port}/` });
        expect(codeOf(result), host).toBe('EPERMISSION');
      }
      expect(codeOf(await callTool(gate, 'http_fetch', { url: 'file:///etc/passwd' }))).toBe('EVALIDATION');
      expect(hits).toEqual([]);
    } finally {
      await gate.close();
    }
  });

  describe('with net:read:127.0.0.1:<port> granted', () => {
    let gate: OutsideGate;
    beforeAll(async () => {
      gate = await startOutsideGate(() => {}, ['--grant', `net:read:127.0.0.1:${port}`]);
    });
    afterAll(() => gate?.close());

    it('a gzip bomb is cut at maxBytes and the gate keeps answering', async () => {
      const { prompt, result } = await callAnswering(gate, 'http_fetch', { url: `http://127.0.0.1:${port}/bomb`, maxBytes: 4096 }, 'approve');
      expect(prompt.preview).toMatchObject({ kind: 'request', method: 'GET', url: `http://127.0.0.1:${port}/bomb` });
      expect(result.structuredContent).toMatchObject({ bytes: 4096, truncated: true });
      await expectAlive(gate);
    });

    it('a deadline past 20 s, under 1 s or not whole is refused with EVALIDATION before anyone is asked', async () => {
      for (const timeoutSeconds of [21, 3600, 0, -1, 1.5, '5']) {
        const result = await callTool(gate, 'http_fetch', { url: `http://127.0.0.1:${port}/trickle`, timeoutSeconds });
        expect(codeOf(result), String(timeoutSeconds)).toBe('EVALIDATION');
      }
      await expectAlive(gate);
    });

    it('a body that never finishes ends in ETIMEOUT saying so, at the deadline the call asked for', async () => {
      const { result } = await callAnswering(gate, 'http_fetch', { url: `http://127.0.0.1:${port}/trickle`, timeoutSeconds: 2 }, 'approve');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/did not arrive within 2 s/);
      expect(codeOf(result)).toBe('ETIMEOUT');
    });

    it('a deeply nested HTML page is converted (or refused) before the tool deadline', async () => {
      const { result } = await callAnswering(gate, 'http_fetch', { url: `http://127.0.0.1:${port}/nested` }, 'approve');
      expect(codeOf(result), textOf(result).slice(0, 200)).not.toBe('ETIMEOUT');
    });
  });
});

describe('shell_exec shows the person what would really run', () => {
  let gate: OutsideGate;
  beforeAll(async () => {
    gate = await startOutsideGate();
  });
  afterAll(() => gate?.close());

  it('a substitution inside double quotes is shown as one, with the command it runs; inside single quotes it is text', async () => {
    const double = await callAnswering(gate, 'shell_exec', { command: 'echo "$(rm -rf ~)"' }, 'deny');
    expect(double.prompt.preview).toMatchObject({
      kind: 'command',
      commands: expect.arrayContaining([
        expect.objectContaining({ argv: ['rm', '-rf', '~'], nested: true }),
        expect.objectContaining({ substitutions: ['$(rm -rf ~)'] }),
      ]),
    });
    expect(codeOf(double.result)).toBe('EDENIED');
    const single = await callAnswering(gate, 'shell_exec', { command: "echo '$(rm -rf ~)'" }, 'deny');
    expect(single.prompt.preview).toMatchObject({ kind: 'command', commands: [expect.objectContaining({ substitutions: [], nested: false })] });
  });

  it('a line the parser cannot read, a NUL byte or a 1 MB line is refused before anyone is asked', async () => {
    for (const command of ['echo $((1+', 'if then fi', 'echo a\u0000; rm -rf ~', 'x'.repeat(1024 * 1024)]) {
      const result = await callTool(gate, 'shell_exec', { command });
      expect(codeOf(result), command.slice(0, 20)).toBe('EVALIDATION');
    }
    expect(((await gate.console.request('listApprovals', {})) as { value: unknown[] }).value).toEqual([]);
    await expectAlive(gate);
  });
});
