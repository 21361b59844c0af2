#!/usr/bin/env node
// Runs the test runners: vitest, then Playwright (the default), or both at once with --together.
// With --checks it first runs the import rules and the build (only when a source is newer than out/),
// and the runners start once both passed; the type check runs from the start beside all of them, its
// output printed whole when it ends, and a failing one fails the run.
// Most test files wait more than they compute (a sandbox starting, a gate answering, a deadline
// passing): one at a time, they keep a core about half busy. With --together, vitest runs two files
// at a time (two workers) while Playwright runs its specs one at a time beside them, so the 2 cores
// stay busy until the last file ends. vitest's output streams as it comes; Playwright's is held and
// printed after it, so neither log is cut into the other. The exit code is the first failing
// runner's (0 when both pass). In CI each runner writes a JSON report (scripts/test-summary.mjs reads them).
//   node scripts/run-tests.mjs [--checks] [--together] [--vitest=ARG]... [--playwright=ARG]...
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const options = process.argv.slice(2);
const unknown = options.filter((option) => option !== '--together' && option !== '--checks' && !/^--(vitest|playwright)=/.test(option));
if (unknown.length > 0) {
  console.error(`run-tests: unknown option ${unknown[0]}; give --checks, --together, --vitest=ARG or --playwright=ARG`);
  process.exit(2);
}
const together = options.includes('--together');
const argsFor = (runner) => options.filter((option) => option.startsWith(`--${runner}=`)).map((option) => option.slice(runner.length + 3));

/** vitest's workers beside Playwright (see the top of this file). */
const WORKERS_BESIDE_PLAYWRIGHT = 2;

const VITEST = join(root, 'node_modules/vitest/vitest.mjs');
const PLAYWRIGHT = join(root, 'node_modules/@playwright/test/cli.js');

const children = new Set();
/**
 * Passes a signal on: to a check's whole process group (npm run starts tsc as its own child), to a
 * runner itself (it stops its workers and browsers as on a person's Ctrl+C).
 */
function signalAll(signal) {
  for (const child of children) {
    try {
      process.kill(child.group ? -child.pid : child.pid, signal);
    } catch {
      // Already gone.
    }
  }
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => signalAll(signal));

/** Starts one runner (or check); `held` keeps its output until release() prints it and lets the rest stream. */
function start(args, { hold, env = {}, command = process.execPath, group = false }) {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', hold ? 'pipe' : 'inherit', hold ? 'pipe' : 'inherit'], detached: group });
  child.group = group;
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

/** The type check, started by --checks: it runs beside the tests, and fails the run if it fails. */
let typecheck;
if (options.includes('--checks')) {
  // npm runs this script with npm_execpath set: its own CLI, run by this Node.
  const [command, ...npm] = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
  typecheck = start([...npm, 'run', 'typecheck'], { hold: true, command, group: true });
  // The tests need the bundle and the import rules first. The build runs only when a source is newer
  // than out/: on a fresh clone `npm install` (its prepare step) has just built it.
  const needed = [
    { name: 'npm run lint', ...start([...npm, 'run', 'lint'], { hold: true, command, group: true }) },
    { name: 'the build', ...start([join(root, 'scripts/build-if-stale.mjs')], { hold: true, group: true }) },
  ];
  for (const check of needed) {
    check.code = await check.exited;
    check.release();
  }
  const failed = needed.find((check) => check.code !== 0);
  if (failed) {
    signalAll('SIGTERM');
    console.error(`run-tests: ${failed.name} failed; no test was run`);
    process.exit(failed.code);
  }
  typecheck.code = typecheck.exited.then((code) => {
    typecheck.release();
    // Said at once, while the tests go on: the run fails at its end whatever they say.
    if (code !== 0) console.error('run-tests: npm run typecheck failed (above), so this run fails; the tests go on, Ctrl+C stops them');
    return code;
  });
}

const vitestArgs = argsFor('vitest');
const playwrightArgs = [PLAYWRIGHT, 'test', ...argsFor('playwright')];
let codes;
if (together) {
  const vitest = start([VITEST, 'run', `--maxWorkers=${WORKERS_BESIDE_PLAYWRIGHT}`, ...vitestArgs], { hold: false });
  const playwright = start(playwrightArgs, { hold: true });
  const vitestCode = await vitest.exited;
  console.log('\n── Playwright (ran beside vitest) ──');
  playwright.release();
  codes = [vitestCode, await playwright.exited];
} else {
  const vitestCode = await start([VITEST, 'run', ...vitestArgs], { hold: false }).exited;
  codes = [vitestCode, await start(playwrightArgs, { hold: false }).exited];
}
if (typecheck) codes.unshift(await typecheck.code);
process.exit(codes.find((code) => code !== 0) ?? 0);
