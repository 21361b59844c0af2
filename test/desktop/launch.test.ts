import { afterEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => ({}));

const { resolveLaunchOptions } = await import('../../main/desktop/launchOptions');
const { createGateShutdown } = await import('../../main/desktop/gateShutdown');

const base = { argv: ['/usr/bin/electron', '/app'], env: {}, cwd: '/cwd', homeDir: '/home/ada' };

describe('resolveLaunchOptions', () => {
  it('defaults to the working directory and ~/.toolgate', () => {
    expect(resolveLaunchOptions(base)).toEqual({ workspace: '/cwd', home: '/home/ada/.toolgate' });
  });

  it('takes --workspace over TOOLGATE_WORKSPACE, relative to the working directory', () => {
    const env = { TOOLGATE_WORKSPACE: '/from/env', TOOLGATE_HOME: 'state' };
    expect(resolveLaunchOptions({ ...base, env })).toEqual({ workspace: '/from/env', home: '/cwd/state' });
    expect(resolveLaunchOptions({ ...base, env, argv: [...base.argv, '--workspace', 'proj'] }).workspace).toBe('/cwd/proj');
    expect(resolveLaunchOptions({ ...base, env, argv: [...base.argv, '--workspace=/abs'] }).workspace).toBe('/abs');
  });

  it('ignores empty values and a dangling flag', () => {
    const env = { TOOLGATE_WORKSPACE: '', TOOLGATE_HOME: '' };
    expect(resolveLaunchOptions({ ...base, env, argv: [...base.argv, '--workspace'] })).toEqual({
      workspace: '/cwd',
      home: '/home/ada/.toolgate',
    });
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
