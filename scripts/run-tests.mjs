#!/usr/bin/env node
// Runs the test runners: vitest, then Playwright (the default), or both at once with --together.
// With --checks it first runs the type check, the import rules and the build, all three at once (the
// type check and the build each keep about one core busy), each one's output printed whole when it
// ends; the runners start only once all three passed.
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
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
  });
}

/** Starts one runner (or check); `held` keeps its output until release() prints it and lets the rest stream. */
function start(args, { hold, env = {}, command = process.execPath }) {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', hold ? 'pipe' : 'inherit', hold ? 'pipe' : 'inherit'] });
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

if (options.includes('--checks')) {
  // npm runs this script with npm_execpath set: its own CLI, run by this Node.
  const [command, ...npm] = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
  const checks = ['typecheck', 'lint', 'build'].map((script) => ({ script, ...start([...npm, 'run', script], { hold: true, command }) }));
  for (const check of checks) {
    check.code = await check.exited;
    check.release();
  }
  const failed = checks.find((check) => check.code !== 0);
  if (failed) {
    console.error(`run-tests: npm run ${failed.script} failed; no test was run`);
    process.exit(failed.code);
  }
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
process.exit(codes.find((code) => code !== 0) ?? 0);
