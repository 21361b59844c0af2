#!/usr/bin/env node
// Prints one line, "tests: N passed, N failed", from the JSON reports vitest and Playwright write in CI,
// then the Playwright specs this machine did not run. The desktop shell's spec needs Electron's own
// binary, which CI does not download: it is named on a line of its own and not counted, as it guards
// nothing (the console's security is tested through `toolgate serve`). Any other skipped spec is a
// guard left untested, and with CI=true this exits 1. (vitest's own skips are named and counted by
// test/setup/runSummary.ts at the end of its run.) Last come the tests that failed, each with the first
// lines of its error: a CI log is often read from its end, far below where the runner printed them.
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

/** Spec files whose skip on a machine without what they need is expected and is not a security guard. */
const NOT_GUARDS = new Map([['desktop.spec.ts', 'the desktop shell (Electron) is not a security guard']]);

let passed = 0;
let failed = 0;
let skipped = 0;
let notes = '';
/** Each failed test: where it is, and the first lines of what it failed on. */
const failures = [];
/** The first few lines of an error message, without the terminal's colour codes. */
const firstLines = (message = '') => message.replace(/\x1b\[[0-9;]*m/g, '').split('\n').filter((line) => line.trim() !== '').slice(0, 4);
// vitest's report.
const VITEST_REPORT = 'test-results/vitest.json';
if (existsSync(VITEST_REPORT)) {
  const report = JSON.parse(readFileSync(VITEST_REPORT, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  // Every test can pass while the run fails (an unhandled error): say so rather than print a clean line.
  if (report.success === false && report.numFailedTests === 0) notes += `; vitest failed on an unhandled error (see above; ${VITEST_REPORT})`;
  skipped += report.numPendingTests + (report.numTodoTests ?? 0);
  for (const file of report.testResults ?? []) {
    const where = relative(process.cwd(), file.name);
    const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failed) failures.push({ where: `${where} › ${test.fullName}`, lines: firstLines(test.failureMessages?.join('\n')) });
    // A file can fail with no failed test of its own: an import, a hook before all, an unhandled error.
    if (failed.length === 0 && file.status === 'failed') failures.push({ where, lines: firstLines(file.message) });
  }
}

/** Every skipped Playwright test below a suite, with its file, title and the reason it gave. */
function skippedSpecs(suite) {
  const found = [];
  for (const spec of suite.specs ?? []) {
    for (const test of spec.tests ?? []) {
      if (test.status !== 'skipped') continue;
      const skip = (test.annotations ?? []).find((annotation) => annotation.type === 'skip');
      // A test of a serial group that never started because an earlier one failed is no skip of
      // its own: the failure already fails the run, and the test is named as not run after it.
      const notRun = !skip && (test.results ?? []).every((result) => result.status === 'skipped' && (result.annotations ?? []).length === 0);
      found.push({ file: spec.file, title: spec.title, reason: skip?.description, notRun });
    }
  }
  for (const child of suite.suites ?? []) found.push(...skippedSpecs(child));
  return found;
}

/** Every Playwright test below a suite that failed (or timed out) where it should have passed. */
function failedSpecs(suite) {
  const found = [];
  for (const spec of suite.specs ?? []) {
    for (const test of spec.tests ?? []) {
      if (test.status !== 'unexpected') continue;
      const last = test.results?.at(-1);
      found.push({ where: `${spec.file}:${spec.line} › ${spec.title}`, lines: firstLines(last?.error?.message ?? last?.status) });
    }
  }
  for (const child of suite.suites ?? []) found.push(...failedSpecs(child));
  return found;
}

const lines = [];
let untestedGuards = 0;
if (existsSync('test-results/playwright.json')) {
  const report = JSON.parse(readFileSync('test-results/playwright.json', 'utf8'));
  const { stats } = report;
  passed += stats.expected + (stats.flaky ?? 0);
  failed += stats.unexpected;
  skipped += stats.skipped;
  failures.push(...(report.suites ?? []).flatMap(failedSpecs));
  const all = (report.suites ?? []).flatMap(skippedSpecs);
  const afterFailure = all.filter((spec) => spec.notRun && stats.unexpected > 0);
  const specs = all.filter((spec) => !afterFailure.includes(spec));
  if (afterFailure.length > 0) lines.push(`Playwright: ${afterFailure.length} spec${afterFailure.length === 1 ? '' : 's'} not run after a failure earlier in ${afterFailure.length === 1 ? 'its' : 'their'} serial group (see the failure above)`);
  const expected = specs.filter((spec) => NOT_GUARDS.has(spec.file.replace(/^.*\//, '')));
  const guards = specs.filter((spec) => !expected.includes(spec));
  untestedGuards = guards.length;
  for (const [file, why] of NOT_GUARDS) {
    const here = expected.filter((spec) => spec.file.endsWith(file));
    if (here.length > 0) lines.push(`Playwright: ${here.length} ${file} spec${here.length === 1 ? '' : 's'} not run here (${here[0].reason ?? 'skipped'}); not counted: ${why}`);
  }
  lines.push(`Playwright: ${guards.length} security guard spec${guards.length === 1 ? '' : 's'} untested on this machine${guards.length > 0 ? ':' : ''}`);
  for (const spec of guards) lines.push(`  - ${spec.file} › ${spec.title}${spec.reason ? ` (${spec.reason})` : ''}`);
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${notes}`);
for (const line of lines) console.log(line);
if (failures.length > 0) {
  console.log(`Failed (${failures.length}):`);
  for (const { where, lines: message } of failures) {
    console.log(`  - ${where}`);
    for (const line of message) console.log(`      ${line.length > 200 ? `${line.slice(0, 200)}…` : line}`);
  }
}
if (untestedGuards > 0 && process.env.CI === 'true') {
  console.error(`CI: ${untestedGuards} Playwright security guard spec${untestedGuards === 1 ? ' was' : 's were'} skipped; CI's machine must have what every guard needs`);
  process.exit(1);
}
