/**
 * `npm run bench` reads its counts from BENCH_* variables: a mistyped one stops the run at once,
 * naming the variable and its default, rather than measuring nothing and printing NaN rows.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { toolgateRoot } from '../../main/state/paths';
import { WAIT_MS } from '../fixtures/processes';

/** Runs the bench with `env`, the hook section only (the cheapest), and returns how it ended. */
function bench(env: Record<string, string>) {
  return spawnSync(process.execPath, ['bench/run.mjs'], { cwd: toolgateRoot(), env: { ...process.env, BENCH_ONLY: 'hook', ...env }, encoding: 'utf8', timeout: WAIT_MS });
}

describe('the bench counts', () => {
  it('stops before measuring on a count that is not a whole number, naming it and its default', () => {
    const run = bench({ BENCH_CALLS: 'abc' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('BENCH_CALLS=abc is not a whole number of at least 1');
    expect(run.stderr).toContain('its default is 1000');
    expect(run.stdout).not.toContain('Toolgate bench');
  });

  it('refuses no processes per server, where the sequential rows would measure nothing', () => {
    const run = bench({ BENCH_INSTANCES: '0' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('BENCH_INSTANCES=0 is not a whole number of at least 1');
  });

  it('refuses a blank count and a fraction in a section read later, before that section measures', () => {
    for (const value of [' ', '2.5']) {
      const run = bench({ BENCH_HOOK_RUNS: value });
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(`BENCH_HOOK_RUNS=${value} is not a whole number of at least 1`);
      expect(run.stdout).not.toContain('HOLDS');
    }
  });

  it('takes 0 where 0 skips a part: the echo warm-up', () => {
    const run = bench({ BENCH_ECHO_WARMUP: '0', BENCH_HOOK_RUNS: 'x' });
    // The warm-up passed; the run stopped at the hook's count instead.
    expect(run.stderr).not.toContain('BENCH_ECHO_WARMUP');
    expect(run.stderr).toContain('BENCH_HOOK_RUNS=x');
  });
});
