import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WAIT_MS } from '../fixtures/processes';

const root = join(__dirname, '../..');
const CONFIG = 'test/fixtures/runSummary/vitest.config.ts';

/** Runs the fixture suite (or some of its files) through the summary reporter, as CI would or as a person would. */
function runFixture(files: string[], ci: boolean): { code: number | null; output: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: ci ? 'true' : '' };
  delete env.VITEST;
  delete env.VITEST_WORKER_ID;
  delete env.VITEST_POOL_ID;
  const run = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', CONFIG, ...files], {
    cwd: root,
    env,
    encoding: 'utf8',
    timeout: WAIT_MS,
  });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('the run summary', () => {
  it('names each guard skipped for want of what it needs, with a count, and fails the run only in CI', () => {
    const local = runFixture(['missingTool'], false);
    expect(local.output).toContain('3 security guard tests untested on this machine');
    expect(local.output).toContain('missingTool.check.ts › a guard that needs a missing tool: 2 tests');
    expect(local.output).toContain('missingTool.check.ts › a guard that finds out at run time: refuses a device (this machine cannot make one)');
    expect(local.code).toBe(0);

    const ci = runFixture(['missingTool'], true);
    expect(ci.output).toContain('CI: 3 security guard tests were skipped');
    expect(ci.code).toBe(1);
  });

  it('says none are untested when nothing was skipped, and lists the slowest files', () => {
    const run = runFixture(['everyMachine'], true);
    expect(run.output).toContain('Security guards untested on this machine: 0');
    expect(run.output).toMatch(/The 1 slowest test file:\n\s+\d+\.\d s {2}everyMachine\.check\.ts/);
    expect(run.code).toBe(0);
  });

  it('does not count the tests a failing setup skipped: that is a failure, and the run says so', () => {
    const run = runFixture(['brokenSetup'], false);
    expect(run.output).toContain('Security guards untested on this machine: 0');
    expect(run.code).toBe(1);
  });
});
