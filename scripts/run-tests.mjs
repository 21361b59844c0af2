#!/usr/bin/env node
// Runs the two test runners: vitest, then Playwright (the default), or both at once with --together.
// On 2 cores vitest runs one test file at a time (its forks pool takes cores − 1 workers) and
// Playwright one spec at a time, so at once they keep both cores busy. vitest's output streams as it
// comes; Playwright's is held and printed after it, so neither run's log is cut into the other's.
// The exit code is the first failing runner's (0 when both pass).
//   node scripts/run-tests.mjs [--together] [--vitest=ARG]... [--playwright=ARG]...
import { spawn } from 'node:child_process';
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

const RUNNERS = {
  vitest: [join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...argsFor('vitest')],
  playwright: [join(root, 'node_modules/@playwright/test/cli.js'), 'test', ...argsFor('playwright')],
};

const children = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
  });
}

/** Starts one runner; `held` keeps its output until release() prints it and lets the rest stream. */
function start(name, { hold }) {
  const child = spawn(process.execPath, RUNNERS[name], { cwd: root, stdio: ['ignore', hold ? 'pipe' : 'inherit', hold ? 'pipe' : 'inherit'] });
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

let codes;
if (together) {
  const vitest = start('vitest', { hold: false });
  const playwright = start('playwright', { hold: true });
  const vitestCode = await vitest.exited;
  console.log('\n── Playwright (ran beside vitest) ──');
  playwright.release();
  codes = [vitestCode, await playwright.exited];
} else {
  const vitestCode = await start('vitest', { hold: false }).exited;
  codes = [vitestCode, await start('playwright', { hold: false }).exited];
}
process.exit(codes.find((code) => code !== 0) ?? 0);
