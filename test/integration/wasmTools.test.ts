/**
 * WASM tools through a real gate, called by the official MCP client: fuel and memory budgets end a
 * call with EQUOTA and the next call is served, a read through the host that leaves the workspace is
 * refused, a fetch through the host reaches only a host the call names and the gate grants, a module
 * importing what the gate does not provide is refused at load, and a Pure WASM tool's call replays
 * with the same response hash.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { startTestServer, type TestServer } from '../tools/httpFetchServer';
import { FETCHING_MANIFEST, GROW_WAT, SAMPLE_TOOLS, SPIN_WAT, WRITING_MANIFEST, fetchingWat, importingWat, readingWat, writeWasmTool, writingWat } from '../tools/wasm/wasmFixtures';
import { runCliHere } from './cliHere';
import { callIdOf, connectMcp, makeTempDirs, readToken, textOf, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

let dirs: TempDirs;
let tools: string;
let running: RunningGate;
let client: Client;
/** The log lines (tools' stderr) the gate sent the client. */
const logs: string[] = [];

const FUEL = 250_000;

beforeAll(async () => {
  dirs = makeTempDirs();
  tools = mkdtempSync(join(tmpdir(), 'toolgate-wasm-tools-'));
  const modules = [
    writeWasmTool(tools, 'spin', SPIN_WAT, { source: { fuel: FUEL } }),
    writeWasmTool(tools, 'grow', GROW_WAT, { source: { memoryPages: 4 } }),
    writeWasmTool(tools, 'read_outside', readingWat('../outside/secret.txt'), {
      manifest: { tier: 'STANDARD', determinism: 'Deterministic', sideEffects: ['FsRead'], capabilities: ['fs:read'], pathArguments: ['path'] },
    }),
    writeWasmTool(tools, 'read_unnamed', readingWat('private.txt'), {
      manifest: { tier: 'STANDARD', determinism: 'Deterministic', sideEffects: ['FsRead'], capabilities: ['fs:read'], pathArguments: ['path'] },
    }),
    writeWasmTool(tools, 'write_note', writingWat('notes/made.txt', 'written by wasm'), { manifest: WRITING_MANIFEST }),
    writeWasmTool(tools, 'write_hook', writingWat('.git/hooks/pre-commit', 'evil'), { manifest: WRITING_MANIFEST }),
    SAMPLE_TOOLS.textStats,
    SAMPLE_TOOLS.fileStats,
  ];
  running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: WAIT_MS, poolSize: 1, toolModules: modules });
  client = await connectMcp(running.mcpUrl, readToken(dirs.home));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(String(notification.params.data)));
  // The person approves every prompt (the writing tools are ELEVATED): what is tested is the host's refusal.
  running.backend.subscribe('approvalRequested', (request) => void running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' }));
});

afterAll(async () => {
  await client?.close();
  await running?.close();
  dirs?.remove();
  if (tools) rmSync(tools, { recursive: true, force: true });
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The error code and message of a failed call, from its structured result. */
function failure(result: CallToolResult): { code: string; message: string } {
  expect(result.isError, textOf(result)).toBe(true);
  const error = (result.structuredContent as { error?: { code: string; message: string } } | undefined)?.error;
  return error ?? { code: /^(E[A-Z]+)/.exec(textOf(result))?.[1] ?? '', message: textOf(result) };
}

describe('WASM tools through the gate', () => {
  it('ends an endless loop with EQUOTA from fuel, naming the same budget on every run, and serves the next call', async () => {
    const first = failure(await call('spin', { spin: true }));
    const second = failure(await call('spin', { spin: true }));
    expect(first.code).toBe('EQUOTA');
    expect(first.message).toContain(`ran out of fuel: it used its whole budget of ${FUEL} units`);
    expect(second).toEqual(first);
    const next = await call('spin', {});
    expect(next.isError, textOf(next)).toBeFalsy();
    expect(textOf(next)).toContain('"ok":true');
  });

  it('ends a growth past the memory cap with EQUOTA, while growing within it works', async () => {
    const within = await call('grow', {});
    expect(within.isError, textOf(within)).toBeFalsy();
    const past = failure(await call('grow', { spin: true }));
    expect(past.code).toBe('EQUOTA');
    expect(past.message).toContain('ran out of memory: it asked to grow from 1 to 101 pages, past its cap of 4 pages');
  });

  it('refuses with EPERMISSION a read through the host of ../outside, and of a file the arguments do not name', async () => {
    writeFileSync(join(dirs.outside, 'secret.txt'), 'outside-secret-words\n');
    writeFileSync(join(dirs.workspace, 'notes.txt'), 'named\n');
    writeFileSync(join(dirs.workspace, 'private.txt'), 'not named\n');
    const outside = await call('read_outside', { path: 'notes.txt' });
    expect(failure(outside).code, textOf(outside)).toBe('EPERMISSION');
    expect(failure(outside).message).toContain('"../outside/secret.txt" is outside the workspace');
    expect(textOf(outside)).not.toContain('outside-secret-words');
    const unnamed = failure(await call('read_unnamed', { path: 'notes.txt' }));
    expect(unnamed.code).toBe('EPERMISSION');
    expect(unnamed.message).toContain('may reach only the paths its call\'s arguments name (path); "private.txt" is not one of them');
  });

  it('writes inside the folder its call names, and refuses with EPERMISSION a write to a protected path, writing nothing', async () => {
    mkdirSync(join(dirs.workspace, 'notes'));
    const written = await call('write_note', { path: 'notes' });
    expect(written.isError, textOf(written)).toBeFalsy();
    expect(readFileSync(join(dirs.workspace, 'notes/made.txt'), 'utf8')).toBe('written by wasm');
    const hook = failure(await call('write_hook', { path: '.' }));
    expect(hook.code).toBe('EPERMISSION');
    expect(hook.message).toContain('may not write .git/hooks/pre-commit: rule protected:.git guards .git');
    expect(existsSync(join(dirs.workspace, '.git'))).toBe(false);
  });

  it('runs the sample tools: text_stats on a text, file_stats on a workspace file read through the host', async () => {
    const text = 'one two\nthree é 🙂\n';
    const counted = await call('text_stats', { text });
    expect(counted.isError, textOf(counted)).toBeFalsy();
    const expected = { lines: 2, words: 5, characters: [...text].length, bytes: Buffer.byteLength(text) };
    expect(counted.structuredContent).toEqual(expected);
    writeFileSync(join(dirs.workspace, 'poem.txt'), text);
    const file = await call('file_stats', { path: 'poem.txt' });
    expect(file.isError, textOf(file)).toBeFalsy();
    expect(file.structuredContent).toEqual({ path: 'poem.txt', ...expected });
    expect(failure(await call('file_stats', { path: '../outside/secret.txt' })).code).toBe('EPERMISSION');
  });

  it("logs the fuel a call used, the same figure for the same input on every call, more for a longer one", async () => {
    const fuelOf = async (text: string): Promise<number> => {
      logs.length = 0;
      const result = await call('text_stats', { text });
      expect(result.isError, textOf(result)).toBeFalsy();
      const line = logs.find((entry) => entry.startsWith('text_stats: fuel '));
      expect(line, logs.join('\n')).toMatch(/^text_stats: fuel \d+ of 50000000, memory \d+ of 256 pages$/);
      return Number(/fuel (\d+)/.exec(line!)![1]);
    };
    const first = await fuelOf('the same words\n');
    expect(first).toBeGreaterThan(0);
    expect(await fuelOf('the same words\n')).toBe(first);
    expect(await fuelOf('the same words\n'.repeat(50))).toBeGreaterThan(first);
  });

  it('replays a Pure WASM tool call bit for bit, through the console bridge and `toolgate audit replay`', async () => {
    const callId = callIdOf(await call('text_stats', { text: 'replay me\nplease\n' }));
    const report = await running.backend.handlers.replayCall({ callId });
    expect(report.verdict, report.reason).toBe('same');
    expect(report.replayedHash).toBe(report.recordedHash);
    const cli = await runCliHere(['audit', 'replay', callId], dirs.home);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/^same: text_stats 1\.0\.0 gave the same response/);
  });
});

describe('the http_fetch host call', () => {
  let granted: TestServer;
  let ungranted: TestServer;
  let netDirs: TempDirs;
  let netGate: RunningGate;
  let netClient: Client;

  beforeAll(async () => {
    granted = await startTestServer();
    ungranted = await startTestServer();
    netDirs = makeTempDirs();
    const modules = [
      writeWasmTool(tools, 'fetch_named', fetchingWat(`${granted.origin}/text`), { manifest: FETCHING_MANIFEST }),
      writeWasmTool(tools, 'fetch_elsewhere', fetchingWat(`${ungranted.origin}/text`), { manifest: FETCHING_MANIFEST }),
    ];
    const grants = ['fs:read', `net:read:127.0.0.1:${granted.port}`];
    netGate = await startGate({ home: netDirs.home, workspace: netDirs.workspace, port: 0, poolSize: 1, grants, toolModules: modules });
    netClient = await connectMcp(netGate.mcpUrl, readToken(netDirs.home));
  });

  afterAll(async () => {
    await netClient?.close();
    await netGate?.close();
    netDirs?.remove();
    await granted?.close();
    await ungranted?.close();
  });

  async function netCall(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return (await netClient.callTool({ name, arguments: args })) as CallToolResult;
  }

  it('fetches with http_fetch\'s code from a host the call names and the gate grants', async () => {
    const result = await netCall('fetch_named', { url: `${granted.origin}/` });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 200, content: 'hello from the test server\n', truncated: false });
    expect(granted.requests).toContain('GET /text');
  });

  it('refuses a call naming an ungranted host before the module runs, and a module fetching from a host its call does not name', async () => {
    const named = failure(await netCall('fetch_named', { url: `${ungranted.origin}/` }));
    expect(named.code).toBe('EPERMISSION');
    expect(named.message).toContain(`may not reach 127.0.0.1 port ${ungranted.port}`);
    const elsewhere = failure(await netCall('fetch_elsewhere', { url: `${granted.origin}/` }));
    expect(elsewhere.code).toBe('EPERMISSION');
    expect(elsewhere.message).toContain(`may fetch only from the hosts and ports its call's arguments name (url), which the gate checked against its grants; 127.0.0.1:${ungranted.port} is not one of them`);
    expect(ungranted.requests).toEqual([]);
  });
});

describe('WASM modules refused at load', () => {
  async function startWith(manifest: string): Promise<unknown> {
    const gateDirs = makeTempDirs();
    try {
      const gate = await startGate({ home: gateDirs.home, workspace: gateDirs.workspace, port: 0, poolSize: 1, toolModules: [manifest] });
      await gate.close();
      return undefined;
    } catch (error) {
      return error;
    } finally {
      gateDirs.remove();
    }
  }

  it('refuses a module importing a host function the gate does not provide, naming the import', async () => {
    const error = await startWith(writeWasmTool(tools, 'shell_out', importingWat('toolgate', 'spawn')));
    expect(error).toMatchObject({ code: 'EVALIDATION' });
    expect((error as Error).message).toContain('imports toolgate.spawn (function), which the gate does not provide');
    const wasi = await startWith(writeWasmTool(tools, 'wasi', importingWat('wasi_snapshot_preview1', 'fd_write')));
    expect((wasi as Error).message).toContain('imports wasi_snapshot_preview1.fd_write (function), which the gate does not provide');
  });

  it('refuses a module importing a host call its manifest does not declare', async () => {
    const error = await startWith(writeWasmTool(tools, 'undeclared_write', importingWat('toolgate', 'write_file')));
    expect(error).toMatchObject({ code: 'EVALIDATION' });
    expect((error as Error).message).toContain('imports toolgate.write_file, which writes a workspace file, but its manifest does not declare it');
  });
});

describe('a deny rule on a path below the folder a WASM tool is given', () => {
  it('holds the call: the tool may reach anything below the folder it names, so the rule is judged against all of it', async () => {
    const gateDirs = makeTempDirs();
    // The person denies the tool the one file; the agent names the folder holding it instead.
    writeFileSync(join(gateDirs.home, 'policy.json'), JSON.stringify({ deny: ['read_unnamed(private.txt)'] }));
    writeFileSync(join(gateDirs.workspace, 'private.txt'), 'the private note');
    const manifest = writeWasmTool(gateDirs.outside, 'read_unnamed', readingWat('private.txt'), {
      manifest: { tier: 'STANDARD', determinism: 'Deterministic', sideEffects: ['FsRead'], capabilities: ['fs:read'], pathArguments: ['path'] },
    });
    const gate = await startGate({ home: gateDirs.home, workspace: gateDirs.workspace, port: 0, poolSize: 1, approvalTimeoutMs: WAIT_MS, toolModules: [manifest] });
    const agent = await connectMcp(gate.mcpUrl, readToken(gateDirs.home));
    try {
      const named = (await agent.callTool({ name: 'read_unnamed', arguments: { path: 'private.txt' } })) as CallToolResult;
      expect(named._meta?.['toolgate/errorCode']).toBe('EDENIED');
      const folder = (await agent.callTool({ name: 'read_unnamed', arguments: { path: '.' } })) as CallToolResult;
      expect(folder._meta?.['toolgate/errorCode']).toBe('EDENIED');
      expect(textOf(folder)).not.toContain('the private note');
    } finally {
      await agent.close();
      await gate.close();
      gateDirs.remove();
    }
  });
});
