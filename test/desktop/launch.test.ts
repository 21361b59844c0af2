import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

vi.mock('electron', () => ({}));

const { resolveLaunchOptions } = await import('../../main/desktop/launchOptions');
const { createGateShutdown } = await import('../../main/desktop/gateShutdown');

let cwd: string;
let homeDir: string;
beforeEach(() => {
  cwd = makeTempFolder();
  homeDir = makeTempFolder();
});
afterEach(() => {
  removeTempFolder(cwd);
  removeTempFolder(homeDir);
});

/** Electron's own argv around the gate's options, as the desktop process sees it. */
const electronArgv = (...gate: string[]) => ['/usr/bin/electron', '--no-sandbox', '/app', ...gate, '--enable-logging'];

describe('resolveLaunchOptions', () => {
  it('defaults to the working directory and ~/.toolgate, each setting saying it is a default', () => {
    const launch = resolveLaunchOptions({ argv: electronArgv(), env: {}, cwd, homeDir });
    expect(launch.home).toBe(join(homeDir, '.toolgate'));
    expect(launch.settings).toMatchObject({ workspace: cwd, approvalTimeoutSeconds: 300, sandbox: 'auto', grants: [] });
    expect(new Set(launch.report.entries.map((entry) => entry.source))).toEqual(new Set(['default']));
  });

  it('takes the same options as toolgate serve, from argv or from npm start, over settings.json, over the defaults', () => {
    const home = join(homeDir, '.toolgate');
    mkdirSync(home);
    mkdirSync(join(cwd, 'from-file'));
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ workspace: join(cwd, 'from-file'), approvalTimeoutSeconds: 60, pool: 3 }));
    const env = { TOOLGATE_DESKTOP_ARGS: JSON.stringify(['--grant', 'net:read:docs.python.org', '--approval-timeout', '30']) };
    const launch = resolveLaunchOptions({ argv: electronArgv('--read-only', '--sandbox=off'), env, cwd, homeDir });
    expect(launch.settings).toMatchObject({
      workspace: join(cwd, 'from-file'),
      approvalTimeoutSeconds: 30,
      pool: 3,
      grants: ['net:read:docs.python.org'],
      readOnly: true,
      sandbox: 'off',
    });
    const source = Object.fromEntries(launch.report.entries.map((entry) => [entry.key, entry.source]));
    expect(source).toMatchObject({ workspace: 'file', approvalTimeoutSeconds: 'flag', pool: 'file', grants: 'flag', readOnly: 'flag', port: 'default' });
  });

  it('takes TOOLGATE_WORKSPACE over the file, a --workspace over both, relative to the working directory', () => {
    mkdirSync(join(cwd, 'proj'));
    const env = { TOOLGATE_WORKSPACE: '/from/env', TOOLGATE_HOME: 'state' };
    expect(resolveLaunchOptions({ argv: electronArgv(), env, cwd, homeDir })).toMatchObject({ home: join(cwd, 'state'), settings: { workspace: '/from/env' } });
    expect(resolveLaunchOptions({ argv: electronArgv('--workspace', 'proj'), env, cwd, homeDir }).settings.workspace).toBe(join(cwd, 'proj'));
  });

  it('refuses a bad settings file with the file, the field and the fix', () => {
    const home = join(homeDir, '.toolgate');
    mkdirSync(home);
    writeFileSync(join(home, 'settings.json'), '{"sandbox": "sometimes"}');
    expect(() => resolveLaunchOptions({ argv: electronArgv(), env: {}, cwd, homeDir })).toThrow(/settings\.json: "sandbox" .*Fix: "auto", "require" or "off"/);
  });
});

describe('createGateShutdown', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('closes the gate once however often it is asked', async () => {
    const close = vi.fn(async () => {});
    const shutdown = createGateShutdown(close);
    expect(shutdown.finished).toBe(false);
    await Promise.all([shutdown.run(), shutdown.run()]);
    await shutdown.run();
    expect(close).toHaveBeenCalledTimes(1);
    expect(shutdown.finished).toBe(true);
  });

  it('finishes even if closing fails', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const shutdown = createGateShutdown(async () => {
      throw new Error('disk gone');
    });
    await expect(shutdown.run()).resolves.toBeUndefined();
    expect(shutdown.finished).toBe(true);
  });

  it('gives up on a close that never ends, after the timeout', async () => {
    vi.useFakeTimers();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const shutdown = createGateShutdown(() => new Promise<void>(() => {}), 1_000);
    const done = shutdown.run();
    await vi.advanceTimersByTimeAsync(999);
    expect(shutdown.finished).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    expect(shutdown.finished).toBe(true);
  });
});
