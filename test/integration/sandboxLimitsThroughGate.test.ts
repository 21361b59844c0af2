/**
 * The tool process's limits and sandbox against a hostile tool module, from the outside: the
 * official MCP client with the agents' token calls the tools of a real gate (started over the
 * built tool process, in bubblewrap), and reads what an agent would. A tool past its deadline, its
 * memory, its processes or its output is ended with the code that says which; it sees none of the
 * gate's environment or state folder; it writes the workspace only when it declares FsWrite and the
 * root never; it reaches the network only when it declares it. The gate answers the next call.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { detectCgroups } from '../../main/hosts/cgroupLimits';
import { detectSandbox } from '../../main/hosts/sandbox';
import { withLoopbackListener } from '../fixtures/loopbackListener';
import { processesWithMarker, uniqueMarker, waitUntil } from '../fixtures/processes';
import { connectMcp, makeTempDirs, readConsoleToken, readToken, textOf, type TempDirs } from './helpers';

const HOSTILE_PROCESS = resolve(__dirname, '../fixtures/tools/hostileProcess.mjs');
/** On the root file system, which the sandbox mounts read-only (unlike /tmp, which it replaces). */
const OUTSIDE_TMP = '/var/tmp';
/** A variable of the gate's own environment that no tool may see. */
const PLANTED = { name: 'TOOLGATE_GUARD_PLANTED', value: `planted-${uniqueMarker('env')}` };

let dirs: TempDirs;
let running: RunningGate;
let agent: Client;

beforeAll(async () => {
  const tmpdir = process.env.TMPDIR;
  process.env.TMPDIR = OUTSIDE_TMP;
  process.env[PLANTED.name] = PLANTED.value;
  try {
    dirs = makeTempDirs();
    running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, poolSize: 1, sandbox: 'require', toolModules: [HOSTILE_PROCESS] });
  } finally {
    if (tmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdir;
    delete process.env[PLANTED.name];
  }
  agent = await connectMcp(running.mcpUrl, readToken(dirs.home));
});

afterAll(async () => {
  await agent?.close();
  await running?.close();
  dirs?.remove();
});

function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return agent.callTool({ name, arguments: args }, undefined, { timeout: 90_000 }) as Promise<CallToolResult>;
}

/** The refusal an agent reads: the error code in _meta and the text that explains it. */
function refusal(result: CallToolResult): { code: unknown; text: string } {
  expect(result.isError, textOf(result)).toBe(true);
  return { code: result._meta?.['toolgate/errorCode'], text: textOf(result) };
}

async function expectServing(): Promise<void> {
  const next = await call('echo', { text: 'still here' });
  expect(next.structuredContent).toEqual({ text: 'still here' });
}

describe.skipIf(detectSandbox('auto').kind === 'none')('a hostile tool past its limits, called over MCP', () => {
  it('a tool that ignores SIGTERM past its deadline ends in ETIMEOUT for the agent, and the gate serves the next call', async () => {
    const { code, text } = refusal(await call('spin_forever', { marker: uniqueMarker('spin') }));
    expect(code).toBe('ETIMEOUT');
    expect(text).toMatch(/^ETIMEOUT: .*500 ms/);
    await expectServing();
  });

  it('a tool that outgrows its memory bound ends in EQUOTA for the agent, naming the bound', async () => {
    const { code, text } = refusal(await call('memory_balloon', {}));
    expect(code).toBe('EQUOTA');
    expect(text).toMatch(/192 MiB/);
    await expectServing();
  });

  it('a fork bomb ends in EQUOTA at the process limit, before its deadline', async () => {
    const { code, text } = refusal(await call('fork_bomb', { marker: uniqueMarker('bomb') }));
    expect(code).toBe('EQUOTA');
    expect(text).toMatch(/processes/);
    await expectServing();
  });

  it.skipIf(!detectCgroups().pids)('a tool whose threads pass the kernel\'s task limit ends in EQUOTA, though it never holds more processes than sampling allows', async () => {
    const marker = uniqueMarker('threads');
    const { code, text } = refusal(await call('thread_flood', { marker }));
    expect(code).toBe('EQUOTA');
    expect(text).toMatch(/more processes or threads than its tree may hold/);
    await waitUntil(() => processesWithMarker(marker).length === 0, 'the flooding process to be gone');
    await expectServing();
  });

  it('a tool flooding its stdout is killed once it passes 4 MiB, with EQUOTA', async () => {
    const { code, text } = refusal(await call('stdout_flood', {}));
    expect(code).toBe('EQUOTA');
    expect(text).toMatch(/more than 4.0 MiB to stdout/);
    await expectServing();
  });
});

describe.skipIf(detectSandbox('auto').kind === 'none')('a hostile tool in the sandbox, called over MCP', () => {
  it("sees none of the gate's environment beyond the allowlist, and neither token", async () => {
    const result = await call('environment', {});
    const env = (result.structuredContent as { env: Record<string, string> }).env;
    expect(env.PATH).toBeTruthy();
    expect(env[PLANTED.name]).toBeUndefined();
    const seen = JSON.stringify(result);
    expect(seen).not.toContain(PLANTED.value);
    expect(seen).not.toContain(readToken(dirs.home));
    expect(seen).not.toContain(readConsoleToken(dirs.home));
  });

  it('cannot read the state folder: the tokens and the audit log are not there to read', async () => {
    const paths = ['token', 'console-token', 'audit.db'].map((name) => join(dirs.home, name));
    const result = await call('read_anything', { paths });
    expect(result.structuredContent).toEqual({ results: paths.map((path) => ({ path, read: false, error: 'ENOENT' })) });
    expect(JSON.stringify(result)).not.toContain(readToken(dirs.home));
    expect(JSON.stringify(result)).not.toContain(readConsoleToken(dirs.home));
  });

  it('writes the workspace only when it declares FsWrite, and never the read-only root outside it', async () => {
    const outside = join(dirs.outside, 'pwned.txt');
    const undeclared = await call('write_undeclared', { paths: ['undeclared.txt'], content: 'sneaky' });
    expect(undeclared.structuredContent).toEqual({ results: [{ path: 'undeclared.txt', written: false, error: 'EROFS' }] });
    const declared = await call('write_anywhere', { paths: ['declared.txt', outside], content: 'allowed' });
    expect(declared.structuredContent).toEqual({
      results: [
        { path: 'declared.txt', written: true },
        { path: outside, written: false, error: 'EROFS' },
      ],
    });
    expect(existsSync(join(dirs.workspace, 'undeclared.txt'))).toBe(false);
    expect(readFileSync(join(dirs.workspace, 'declared.txt'), 'utf8')).toBe('allowed');
    expect(existsSync(outside)).toBe(false);
  });

  it('a process a tool declaring no side effect leaves running in its own session is gone once the call returns', async () => {
    const sleeper = uniqueMarker('quiet');
    const result = await call('quiet_spawner', { marker: sleeper });
    expect(result.structuredContent).toEqual({ running: true });
    await waitUntil(() => processesWithMarker(sleeper).length === 0, 'the stray to be gone');
    await expectServing();
  });

  it('what code a tool left in its process starts during a later built-in call (which itself starts nothing) is gone once that call returns', async () => {
    const sleeper = uniqueMarker('trap');
    expect((await call('trap_setter', { marker: sleeper })).structuredContent).toEqual({ set: true });
    // One tool process (and a spare): two calls in a row reach the one the trap was left in.
    for (let i = 0; i < 2; i++) expect((await call('echo', { text: `spring:${sleeper}` })).structuredContent).toEqual({ text: `spring:${sleeper}` });
    await waitUntil(() => processesWithMarker(sleeper).length === 0, 'the stray to be gone');
  });

  it('reaches a listener on the host only when it declares NetRead', async () => {
    await withLoopbackListener(async (url, requests) => {
      const offline = await call('fetch_offline', { url });
      expect(offline.structuredContent).toMatchObject({ reached: false });
      expect(requests()).toBe(0);
      const online = await call('fetch_online', { url });
      expect(online.structuredContent).toEqual({ reached: true, status: 200 });
      expect(requests()).toBe(1);
    });
  });
});
