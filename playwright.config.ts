import { defineConfig } from '@playwright/test';

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
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
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
