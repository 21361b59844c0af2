#!/usr/bin/env node
// Runs the test runners: vitest, then Playwright (the default), or all at once with --together.
// On 2 cores vitest runs one test file at a time (its forks pool takes cores − 1 workers) and
// Playwright one spec at a time. With --together, Playwright and one vitest run start at once, and
// when Playwright ends (it takes about half as long) a second vitest run takes the folders in
// LATER_FOLDERS, so both cores stay busy to the end instead of one idling while vitest finishes
// alone. The first vitest run's output streams as it comes; the others' is held and printed after
// it, so no run's log is cut into another's. The exit code is the first failing runner's (0 when all
// pass). Each vitest run writes its own JSON report in CI (scripts/test-summary.mjs reads them all).
//   node scripts/run-tests.mjs [--together] [--vitest=ARG]... [--playwright=ARG]...
// Given --vitest=ARG (a file filter, say), vitest runs once with it.
import { spawn } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const options = process.argv.slice(2);
const unknown = options.filter((option) => option !== '--together' && !/^--(vitest|playwright)=/.test(option));
if (unknown.length > 0) {
  console.error(`run-tests: unknown option ${unknown[0]}; give --together, --vitest=ARG or --playwright=ARG`);
  process.exit(2);
}
const together = options.includes('--together');
const argsFor = (runner) => options.filter((option) => option.startsWith(`--${runner}=`)).map((option) => option.slice(runner.length + 3));

/**
 * The test folders the second vitest run takes once Playwright is done: about a third of vitest's
 * time (measured in CI: audit, hooks, upstream and hosts), so that the first run, which starts
 * beside Playwright, and the second end about together.
 */
export const LATER_FOLDERS = ['test/audit', 'test/hooks', 'test/upstream', 'test/hosts'];

const VITEST = join(root, 'node_modules/vitest/vitest.mjs');
const PLAYWRIGHT = join(root, 'node_modules/@playwright/test/cli.js');

const children = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
  });
}

/** Starts one runner; `held` keeps its output until release() prints it and lets the rest stream. */
function start(args, { hold, env = {} }) {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', hold ? 'pipe' : 'inherit', hold ? 'pipe' : 'inherit'] });
  children.add(child);
  let held = hold ? [] : undefined;
  if (hold) {
    child.stdout.on('data', (chunk) => (held ? held.push([process.stdout, chunk]) : process.stdout.write(chunk)));
    child.stderr.on('data', (chunk) => (held ? held.push([process.stderr, chunk]) : process.stderr.write(chunk)));
  }
  const exited = new Promise((resolve) =>
    child.once('close', (code, signal) => {
      children.delete(child);
      resolve(code ?? (signal ? 1 : 0));
    }),
  );
  const release = () => {
    for (const [stream, chunk] of held ?? []) stream.write(chunk);
    held = undefined;
  };
  return { exited, release };
}

/**
 * The first vitest run's file filters: every folder and file under test/ but LATER_FOLDERS (and the
 * fixtures). Filters rather than --exclude, which the config's projects do not take from the command line.
 */
function firstFilters() {
  return readdirSync(join(root, 'test'), { withFileTypes: true })
    .map((entry) => (entry.isDirectory() ? `test/${entry.name}/` : `test/${entry.name}`))
    .filter((path) => path !== 'test/fixtures/' && !LATER_FOLDERS.includes(path.replace(/\/$/, '')) && (path.endsWith('/') || /\.test\.tsx?$/.test(path)));
}

// A second run's report left by an earlier run would be counted with this one's.
rmSync(join(root, 'test-results/vitest-later.json'), { force: true });
const vitestArgs = argsFor('vitest');
const playwrightArgs = [PLAYWRIGHT, 'test', ...argsFor('playwright')];
let codes;
if (together && vitestArgs.length === 0) {
  const first = start([VITEST, 'run', ...firstFilters()], { hold: false });
  const playwright = start(playwrightArgs, { hold: true });
  const later = playwright.exited.then(() =>
    start([VITEST, 'run', ...LATER_FOLDERS], { hold: true, env: { TOOLGATE_VITEST_REPORT: 'test-results/vitest-later.json' } }),
  );
  const firstCode = await first.exited;
  console.log('\n── Playwright (ran beside vitest) ──');
  playwright.release();
  const playwrightCode = await playwright.exited;
  console.log(`\n── vitest: ${LATER_FOLDERS.join(', ')} (started when Playwright ended) ──`);
  const second = await later;
  second.release();
  codes = [firstCode, playwrightCode, await second.exited];
} else if (together) {
  const vitest = start([VITEST, 'run', ...vitestArgs], { hold: false });
  const playwright = start(playwrightArgs, { hold: true });
  const vitestCode = await vitest.exited;
  console.log('\n── Playwright (ran beside vitest) ──');
  playwright.release();
  codes = [vitestCode, await playwright.exited];
} else {
  const vitestCode = await start([VITEST, 'run', ...vitestArgs], { hold: false }).exited;
  codes = [vitestCode, await start(playwrightArgs, { hold: false }).exited];
}
process.exit(codes.find((code) => code !== 0) ?? 0);
