/**
 * The closing summary CI prints from Playwright's report: a security-guard spec skipped on this
 * machine fails CI, the desktop shell's spec does not, and tests of a serial group that never started
 * after an earlier failure are named as such, not counted as guards this machine cannot test.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/test-summary.mjs', import.meta.url));
const folders: string[] = [];

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

type Test = { status: string; annotations: Array<{ type: string; description?: string }>; results: Array<{ status: string; annotations?: unknown[] }> };
const spec = (file: string, title: string, test: Test) => ({ file, title, tests: [test] });
const skippedBy = (description: string): Test => ({
  status: 'skipped',
  annotations: [{ type: 'skip', description }],
  results: [{ status: 'skipped', annotations: [{ type: 'skip', description }] }],
});
const notStarted: Test = { status: 'skipped', annotations: [{ type: 'serial' }], results: [{ status: 'skipped', annotations: [] }] };

/** A vitest JSON report's counts. */
const vitestReport = (passed: number, failed: number) => ({ numPassedTests: passed, numFailedTests: failed, numPendingTests: 0, success: failed === 0 });

/** Runs the summary with CI=true over a Playwright report of these specs, and vitest reports by file name. */
function summarize(specs: unknown[], unexpected: number, vitest: Record<string, object> = {}): { code: number | null; out: string } {
  const folder = mkdtempSync(join(tmpdir(), 'toolgate-summary-'));
  folders.push(folder);
  mkdirSync(join(folder, 'test-results'));
  const report = { stats: { expected: 5, unexpected, flaky: 0, skipped: specs.length }, suites: [{ specs }] };
  writeFileSync(join(folder, 'test-results/playwright.json'), JSON.stringify(report));
  for (const [name, content] of Object.entries(vitest)) writeFileSync(join(folder, 'test-results', name), JSON.stringify(content));
  const run = spawnSync(process.execPath, [SCRIPT], { cwd: folder, env: { ...process.env, CI: 'true' }, encoding: 'utf8' });
  return { code: run.status, out: run.stdout + run.stderr };
}

describe('the CI test summary', () => {
  it('fails CI on a security-guard spec skipped for want of what it needs, and names it', () => {
    const run = summarize([spec('e2e/shellPrompt.spec.ts', 'the sandbox refuses a write', skippedBy('bubblewrap is not installed'))], 0);
    expect(run.code).toBe(1);
    expect(run.out).toContain('1 security guard spec untested on this machine');
    expect(run.out).toContain('the sandbox refuses a write (bubblewrap is not installed)');
  });

  it("names the desktop shell's spec apart and does not count it", () => {
    const run = summarize([spec('e2e/desktop.spec.ts', 'opens the console', skippedBy('Electron binary not installed'))], 0);
    expect(run.code).toBe(0);
    expect(run.out).toContain('0 security guard specs untested');
    expect(run.out).toMatch(/1 desktop\.spec\.ts spec not run here \(Electron binary not installed\); not counted/);
  });

  it("counts vitest's tests beside Playwright's, a failure among them", () => {
    const run = summarize([], 0, { 'vitest.json': vitestReport(40, 2) });
    expect(run.out).toContain('tests: 45 passed, 2 failed');
  });

  it('names tests of a serial group left unstarted by a failure, without counting them as untestable', () => {
    const run = summarize([spec('e2e/upstreamTools.spec.ts', 'a trusted tool turned hostile', notStarted), spec('e2e/upstreamTools.spec.ts', 'a sandbox change', notStarted)], 1);
    expect(run.out).toContain('2 specs not run after a failure earlier in their serial group');
    expect(run.out).toContain('0 security guard specs untested');
    expect(run.code).toBe(0);
  });
});
