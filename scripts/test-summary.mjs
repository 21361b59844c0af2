#!/usr/bin/env node
// Prints one line, "tests: N passed, N failed", from the JSON reports vitest and Playwright write in CI,
// then the Playwright specs this machine did not run. The desktop shell's spec needs Electron's own
// binary, which CI does not download: it is named on a line of its own and not counted, as it guards
// nothing (the console's security is tested through `toolgate serve`). Any other skipped spec is a
// guard left untested, and with CI=true this exits 1. (vitest's own skips are named and counted by
// test/setup/runSummary.ts at the end of its run.)
import { existsSync, readFileSync } from 'node:fs';

/** Spec files whose skip on a machine without what they need is expected and is not a security guard. */
const NOT_GUARDS = new Map([['desktop.spec.ts', 'the desktop shell (Electron) is not a security guard']]);

let passed = 0;
let failed = 0;
let skipped = 0;
let notes = '';
// vitest's report.
const VITEST_REPORT = 'test-results/vitest.json';
if (existsSync(VITEST_REPORT)) {
  const report = JSON.parse(readFileSync(VITEST_REPORT, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  // Every test can pass while the run fails (an unhandled error): say so rather than print a clean line.
  if (report.success === false && report.numFailedTests === 0) notes += `; vitest failed on an unhandled error (see above; ${VITEST_REPORT})`;
  skipped += report.numPendingTests + (report.numTodoTests ?? 0);
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

const lines = [];
let untestedGuards = 0;
if (existsSync('test-results/playwright.json')) {
  const report = JSON.parse(readFileSync('test-results/playwright.json', 'utf8'));
  const { stats } = report;
  passed += stats.expected + (stats.flaky ?? 0);
  failed += stats.unexpected;
  skipped += stats.skipped;
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
if (untestedGuards > 0 && process.env.CI === 'true') {
  console.error(`CI: ${untestedGuards} Playwright security guard spec${untestedGuards === 1 ? ' was' : 's were'} skipped; CI's machine must have what every guard needs`);
  process.exit(1);
}
