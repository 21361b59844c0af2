import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { HealthStatus } from '../../shared/health';
import { GateError } from '../../shared/errors';
import { defineTool } from '../../main/registry/defineTool';
import type { RegisteredTool } from '../../main/registry/registry';
import { ToolHealthMonitor, type ToolHealthMonitorOptions } from '../../main/health/toolHealth';

function registered(name: string): RegisteredTool {
  const tool = defineTool({
    name,
    version: '1.0.0',
    description: `The ${name} tool.`,
    tier: 'SAFE',
    input: z.object({}),
    output: z.object({}),
    execute: () => ({}),
  });
  return { tool, module: 'builtin' };
}

const TOOLS = [registered('license_check'), registered('echo')];
const monitors: ToolHealthMonitor[] = [];

/** A monitor over TOOLS whose probe answers from `answers` (by tool name). */
function monitor(
  answers: Record<string, () => Promise<HealthStatus>>,
  options: Partial<ToolHealthMonitorOptions> = {},
): ToolHealthMonitor {
  const created = new ToolHealthMonitor({
    tools: () => TOOLS,
    probe: (entry) => answers[entry.tool.manifest.name]!(),
    ...options,
  });
  monitors.push(created);
  return created;
}

const healthy = async (): Promise<HealthStatus> => ({ healthy: true });
const unreachable = async (): Promise<HealthStatus> => ({ healthy: false, message: 'the license server is unreachable' });

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2025-01-01T00:00:00.000Z'));
});

afterEach(() => {
  for (const created of monitors.splice(0)) created.close();
  vi.useRealTimers();
});

describe('ToolHealthMonitor', () => {
  it('knows nothing before the first check, and a tool not checked yet stays available', () => {
    const health = monitor({ license_check: unreachable, echo: healthy });
    expect(health.status('echo')).toEqual({ state: 'unknown' });
    expect(health.isAvailable('echo')).toBe(true);
    expect(health.unavailableReason('echo')).toBeUndefined();
  });

  it('records a healthy and an unhealthy answer, with the time of the check', async () => {
    const health = monitor({ license_check: unreachable, echo: healthy });
    await health.checkAll();
    expect(health.status('echo')).toEqual({ state: 'healthy', checkedAt: '2025-01-01T00:00:00.000Z' });
    expect(health.status('license_check')).toEqual({
      state: 'unhealthy',
      message: 'the license server is unreachable',
      checkedAt: '2025-01-01T00:00:00.000Z',
    });
    expect(health.isAvailable('echo')).toBe(true);
    expect(health.isAvailable('license_check')).toBe(false);
  });

  it('says why a tool is unavailable, when it was checked and what to do, in one sentence', async () => {
    const health = monitor({ license_check: unreachable, echo: healthy });
    await health.checkAll();
    expect(health.unavailableReason('license_check')).toBe(
      'license_check is unavailable: the license server is unreachable; it was last checked at 2025-01-01T00:00:00.000Z; ' +
        'fix what that says and the tool is back at the next check (within 5 min), or restart the gate',
    );
    expect(health.unavailableReason('echo')).toBeUndefined();
  });

  it('counts a probe that throws as unhealthy, with the thrown message', async () => {
    const health = monitor({
      license_check: async () => {
        throw new Error('initialize failed: LICENSE_KEY is not set');
      },
      echo: healthy,
    });
    await health.check('license_check');
    expect(health.status('license_check')).toMatchObject({
      state: 'unhealthy',
      message: 'its health check failed: initialize failed: LICENSE_KEY is not set',
    });
  });

  it('counts a probe that does not answer in time as unhealthy, and does not hang', async () => {
    const health = monitor({ license_check: () => new Promise(() => {}), echo: healthy }, { probeTimeoutMs: 2_000 });
    const checked = health.check('license_check');
    await vi.advanceTimersByTimeAsync(2_000);
    await expect(checked).resolves.toMatchObject({ state: 'unhealthy', message: 'its health check did not answer within 2 s' });
    expect(health.unavailableReason('license_check')).toContain('license_check is unavailable: its health check did not answer within 2 s');
  });

  it('counts an answer of the wrong shape as unhealthy, and reads a seed-style error field', async () => {
    const health = monitor({
      license_check: async () => 'fine' as unknown as HealthStatus,
      echo: async () => ({ healthy: false, error: 'Workspace not accessible' }) as unknown as HealthStatus,
    });
    await health.checkAll();
    expect(health.status('license_check')).toMatchObject({ state: 'unhealthy', message: expect.stringContaining('{ healthy: boolean') });
    expect(health.status('echo')).toMatchObject({ state: 'unhealthy', message: 'Workspace not accessible' });
  });

  it('checks again every interval: a state that flips is recorded and reported once', async () => {
    let up = true;
    const onChange = vi.fn();
    const health = monitor(
      { license_check: async () => (up ? { healthy: true } : { healthy: false, message: 'down' }), echo: healthy },
      { intervalMs: 60_000, onChange },
    );
    await health.start();
    expect(onChange.mock.calls.map(([name]) => name).sort()).toEqual(['echo', 'license_check']);
    onChange.mockClear();

    up = false;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(health.status('license_check')).toEqual({ state: 'unhealthy', message: 'down', checkedAt: '2025-01-01T00:01:00.000Z' });
    expect(onChange.mock.calls).toEqual([['license_check']]);

    await vi.advanceTimersByTimeAsync(60_000); // unchanged: newer checkedAt, no report
    expect(health.status('license_check').checkedAt).toBe('2025-01-01T00:02:00.000Z');
    expect(onChange).toHaveBeenCalledTimes(1);

    up = true;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(health.isAvailable('license_check')).toBe(true);
    expect(onChange).toHaveBeenCalledTimes(2);
  });

  it('keeps going when onChange throws', async () => {
    const health = monitor({ license_check: unreachable, echo: healthy }, {
      onChange: () => {
        throw new Error('listener broke');
      },
    });
    await expect(health.checkAll()).resolves.toBeUndefined();
    expect(health.status('echo').state).toBe('healthy');
  });

  it('shares a check already under way instead of probing twice', async () => {
    const probe = vi.fn(healthy);
    const health = monitor({ license_check: probe, echo: healthy });
    await Promise.all([health.check('license_check'), health.check('license_check')]);
    expect(probe).toHaveBeenCalledTimes(1);
  });

  it('refuses to check a tool that is not registered', async () => {
    const health = monitor({ license_check: healthy, echo: healthy });
    await expect(health.check('nope')).rejects.toBeInstanceOf(GateError);
    await expect(health.check('nope')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('forgets tools that are no longer registered', async () => {
    let tools = TOOLS;
    const health = monitor({ license_check: unreachable, echo: healthy }, { tools: () => tools });
    await health.checkAll();
    tools = [TOOLS[1]!];
    await health.checkAll();
    expect(health.status('license_check')).toEqual({ state: 'unknown' });
  });

  it('closes idempotently: checks under way end at once, and nothing runs afterwards', async () => {
    const probe = vi.fn(() => new Promise<HealthStatus>(() => {}));
    const onChange = vi.fn();
    const health = monitor({ license_check: probe, echo: healthy }, { intervalMs: 1_000, onChange });
    const started = health.start();
    health.close();
    health.close();
    await expect(started).resolves.toBeUndefined();
    expect(health.status('license_check')).toEqual({ state: 'unknown' });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(probe).toHaveBeenCalledTimes(1);
    expect(onChange).not.toHaveBeenCalled();
    await expect(health.check('echo')).resolves.toEqual({ state: 'unknown' });
  });

  it('does not keep the process alive with its timer', () => {
    const unref = vi.fn();
    const spy = vi.spyOn(globalThis, 'setInterval').mockReturnValue({ unref } as unknown as ReturnType<typeof setInterval>);
    const health = monitor({ license_check: healthy, echo: healthy });
    void health.start();
    spy.mockRestore();
    expect(unref).toHaveBeenCalled();
  });
});
