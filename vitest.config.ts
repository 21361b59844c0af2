import { defineConfig } from 'vitest/config';

/**
 * Test files that change what the whole process shares: they mock modules, stub the environment or
 * globals, swap the timers, or spy on shared objects. Each runs in a process of its own. Every other
 * file shares one process, and its loaded modules, with the files run before it: that saves starting
 * a process and importing the gate afresh for each file (about half a second a file on 2 cores).
 * test/setup/isolation.test.ts keeps this list whole: a file that changes shared state and is not
 * listed here fails it.
 */
export const ISOLATED_FILES = [
  // The desktop shell's tests mock electron.
  'test/desktop/**/*.test.{ts,tsx}',
  'test/approvals/approvalQueue.test.ts',
  'test/audit/groupCommit.test.ts',
  'test/executor/argumentBounds.test.ts',
  'test/executor/callCommits.test.ts',
  'test/executor/sharedCalls.test.ts',
  'test/executor/redactionCache.test.ts',
  'test/health/toolHealth.test.ts',
  'test/hooks/bashInGate.test.ts',
  'test/hooks/processRelativePaths.test.ts',
  'test/hosts/closeAfterExit.test.ts',
  'test/hosts/hostileEscapes.test.ts',
  'test/hosts/workspaceGuard.test.ts',
  'test/integration/callWaits.test.ts',
  'test/integration/policyCli.test.ts',
  'test/integration/sandboxLimitsThroughGate.test.ts',
  'test/integration/secretsHostileAgent.test.ts',
  'test/integration/toolSources.test.ts',
  'test/renderer/consoleSync.test.ts',
  'test/renderer/eventFlood.test.ts',
  'test/renderer/wsBridge.test.ts',
  'test/server/consoleEventQueue.test.ts',
  'test/tools/ptyDrain.test.ts',
  'test/tools/shellExec.test.ts',
  'test/tools/stderrFifo.test.ts',
  'test/upstream/inputValidation.test.ts',
  'test/upstream/serverCommands.test.ts',
  'test/upstream/stdioSandbox.test.ts',
];

const ALL_FILES = ['test/**/*.test.{ts,tsx}'];

export default defineConfig({
  test: {
    environment: 'node',
    // A test's own time runs out only when something hangs: on a loaded CI machine a test that starts
    // gates and CLIs three times over took 25 s, against 2.5 s alone. The waits inside a test give up
    // sooner (WAIT_MS in test/fixtures/processes.ts), naming what never came.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Builds out/ first when a source is newer: tests of the hook, CLI and tool processes run the bundle.
    globalSetup: ['test/setup/buildOut.ts'],
    // runSummary names the guards this machine could not test and the 10 slowest files.
    reporters: process.env.CI
      ? ['default', './test/setup/runSummary.ts', ['json', { outputFile: process.env.TOOLGATE_VITEST_REPORT ?? 'test-results/vitest.json' }]]
      : ['default', './test/setup/runSummary.ts'],
    projects: [
      { extends: true, test: { name: 'isolated', include: ISOLATED_FILES, isolate: true } },
      { extends: true, test: { name: 'shared', include: ALL_FILES, exclude: ISOLATED_FILES, isolate: false } },
    ],
  },
});
