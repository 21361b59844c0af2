import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

/**
 * Debian's headless build of Chromium (package chromium-headless-shell): the same Blink and V8 as
 * the chromium package, without the browser's own UI, which is what Playwright itself runs headless
 * specs in. Opening the console costs it about a third of the CPU the full browser spends (which
 * also loads its own pages, such as the address bar's popup, into a renderer of their own). The full
 * browser where it is the only one installed; CHROMIUM_PATH names another.
 */
const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';
const CHROMIUM = process.env.CHROMIUM_PATH ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium');

/** Console end-to-end specs: Debian's Chromium against `toolgate serve`; never a downloaded browser. */
export default defineConfig({
  testDir: 'e2e',
  timeout: 60_000,
  // A wait for the gate's work (a prompt, a row's status, a notification) lasts until it comes or
  // the test's own timeout ends, not 5 s: on a loaded CI machine a first prompt took longer.
  expect: { timeout: 0 },
  retries: 0,
  workers: 1,
  reporter: process.env.CI ? [['list'], ['json', { outputFile: 'test-results/playwright.json' }]] : [['list']],
  outputDir: 'test-results/playwright',
  // The 10 slowest spec files, at the end of every run.
  reportSlowTests: { max: 10, threshold: 0 },
  use: {
    headless: true,
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
    // No trace is recorded: recording one for every spec (to keep it only when the spec failed) cost a
    // fifth to a third of the console specs' CPU, on a machine CI keeps busy. A failure still leaves a
    // screenshot; `npx playwright test SPEC --trace on` records the trace of a spec being looked into.
    trace: 'off',
    screenshot: 'only-on-failure',
  },
});
