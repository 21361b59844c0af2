#!/usr/bin/env node
// Prints one line, "tests: N passed, N failed", from the JSON reports vitest and Playwright write in CI.
import { existsSync, readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
let notes = '';
if (existsSync('test-results/vitest.json')) {
  const report = JSON.parse(readFileSync('test-results/vitest.json', 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  // Every test can pass while the run fails (an unhandled error): say so rather than print a clean line.
  if (report.success === false && report.numFailedTests === 0) notes += '; vitest failed on an unhandled error (see above)';
  skipped += report.numPendingTests + (report.numTodoTests ?? 0);
}
if (existsSync('test-results/playwright.json')) {
  const { stats } = JSON.parse(readFileSync('test-results/playwright.json', 'utf8'));
  passed += stats.expected + (stats.flaky ?? 0);
  failed += stats.unexpected;
  skipped += stats.skipped;
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${notes}`);
