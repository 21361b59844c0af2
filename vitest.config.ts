import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Builds out/ first when a source is newer: tests of the hook, CLI and tool processes run the bundle.
    globalSetup: ['test/setup/buildOut.ts'],
    // runSummary names the guards this machine could not test and the 10 slowest files.
    reporters: process.env.CI
      ? ['default', './test/setup/runSummary.ts', ['json', { outputFile: process.env.TOOLGATE_VITEST_REPORT ?? 'test-results/vitest.json' }]]
      : ['default', './test/setup/runSummary.ts'],
  },
});
