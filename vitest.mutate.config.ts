import { defineConfig } from 'vitest/config';

/**
 * The tests `npm run mutate` runs against each mutant: the unit tests of the guarded modules, which
 * load the sources themselves (tests that start the built CLI would never see a mutant).
 */
export default defineConfig({
  test: {
    include: [
      'test/policy/**/*.test.ts',
      'test/audit/**/*.test.ts',
      'test/secrets/**/*.test.ts',
      'test/tools/**/*.test.ts',
      'test/hosts/**/*.test.ts',
      'test/server/**/*.test.ts',
      'test/hooks/**/*.test.ts',
      'test/approvals/**/*.test.ts',
      'test/upstream/**/*.test.ts',
    ],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
