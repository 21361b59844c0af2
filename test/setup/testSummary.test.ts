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

/** Runs the summary with CI=true over a Playwright report of these specs, and vitest reports by file name (each made for the folder it runs in). */
function summarize(specs: unknown[], unexpected: number, vitest: Record<string, object | ((folder: string) => object)> = {}): { code: number | null; out: string } {
  const folder = mkdtempSync(join(tmpdir(), 'toolgate-summary-'));
  folders.push(folder);
  mkdirSync(join(folder, 'test-results'));
  const report = { stats: { expected: 5, unexpected, flaky: 0, skipped: specs.length }, suites: [{ specs }] };
  writeFileSync(join(folder, 'test-results/playwright.json'), JSON.stringify(report));
  for (const [name, content] of Object.entries(vitest)) writeFileSync(join(folder, 'test-results', name), JSON.stringify(typeof content === 'function' ? content(folder) : content));
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

  it("ends with each failed test of both runners, where it is and the first lines of its error", () => {
    const failedTest = { status: 'unexpected', annotations: [], results: [{ status: 'failed', error: { message: '\u001b[31mError: expect(received).toBe(expected)\u001b[39m\n\nExpected: 1\nReceived: 2' } }] };
    const vitest = (folder: string) => ({
      ...vitestReport(3, 1),
      testResults: [
        { name: join(folder, 'test/audit/log.test.ts'), status: 'failed', assertionResults: [{ status: 'passed', fullName: 'the log keeps order' }, { status: 'failed', fullName: 'the log verifies after a crash', failureMessages: ['AssertionError: expected false to be true\n    at log.test.ts:12:3'] }] },
        { name: join(folder, 'test/audit/index.test.ts'), status: 'failed', message: 'Hook timed out in 30000ms', assertionResults: [] },
        { name: join(folder, 'test/audit/fine.test.ts'), status: 'passed', assertionResults: [{ status: 'passed', fullName: 'fine' }] },
      ],
    });
    const run = summarize([{ ...spec('e2e/approvalView.spec.ts', 'Approve runs the call', failedTest), line: 17 }], 1, { 'vitest.json': vitest });
    const failedPart = run.out.slice(run.out.indexOf('Failed (3):'));
    expect(run.out.indexOf('Failed (3):')).toBeGreaterThan(run.out.indexOf('tests: '));
    expect(failedPart).toContain('- test/audit/log.test.ts › the log verifies after a crash\n      AssertionError: expected false to be true');
    expect(failedPart).toContain('- test/audit/index.test.ts\n      Hook timed out in 30000ms');
    expect(failedPart).toContain('- e2e/approvalView.spec.ts:17 › Approve runs the call\n      Error: expect(received).toBe(expected)\n      Expected: 1\n      Received: 2');
    expect(failedPart).not.toMatch(/keeps order|fine/);
  });

  it('names tests of a serial group left unstarted by a failure, without counting them as untestable', () => {
    const run = summarize([spec('e2e/upstreamTools.spec.ts', 'a trusted tool turned hostile', notStarted), spec('e2e/upstreamTools.spec.ts', 'a sandbox change', notStarted)], 1);
    expect(run.out).toContain('2 specs not run after a failure earlier in their serial group');
    expect(run.out).toContain('0 security guard specs untested');
    expect(run.code).toBe(0);
  });
});
