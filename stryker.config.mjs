/**
 * Mutation testing of the gate's guards (`npm run mutate`): StrykerJS changes one guard at a time (a
 * comparison flipped, a condition forced, a return emptied) and runs the unit tests that cover it. A
 * mutant that no test notices is a guard the suite does not really hold. The score is printed per file.
 */
export const GUARDED_MODULES = [
  // the policy judge and its matchers
  'main/policy/judgeCall.ts',
  'main/policy/compiledRule.ts',
  'main/policy/pathRule.ts',
  'main/policy/shellRule.ts',
  'main/policy/argumentRule.ts',
  'main/policy/hostRule.ts',
  // the audit chain, its anchor and checkpoints
  'main/audit/chainWalk.ts',
  'main/audit/anchorCheck.ts',
  'main/audit/checkpointCheck.ts',
  // the secret redactor and placeholders
  'main/secrets/redactor.ts',
  'main/secrets/placeholders.ts',
  // the shell reader's refusals and risk flags
  'main/tools/shell/commandReader.ts',
  'main/tools/shell/riskFlags.ts',
  'main/tools/shell/unreadableLine.ts',
  // protected paths and the seccomp filter
  'main/tools/protectedPaths.ts',
  'main/hosts/seccompFilter.ts',
  // token checks on /mcp and /bridge
  'main/server/requestGuards.ts',
  // the bearer-token check on /mcp and the hook's paths, and the console token on /bridge (only the
  // token lines of these two files: the rest is transport, held by the gate's integration tests)
  'main/server/gateHttpServer.ts:26-33',
  'main/server/wsBridgeServer.ts:63-91',
  // the hook's fail-closed answers: deny for unreadable input, ask when the gate cannot judge
  'main/hooks/hookClient.ts',
  // approval binding and edited hunks
  'main/approvals/scopedApproval.ts',
  'main/approvals/editedArguments.ts',
  // definition pins of upstream tools
  'main/upstream/definitionPin.ts',
];

export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner', './scripts/stryker-message-ignorer.mjs'],
  vitest: { configFile: 'vitest.mutate.config.ts' },
  mutate: process.env.MUTATE ? process.env.MUTATE.split(',') : GUARDED_MODULES,
  // Each mutant runs only the tests that reached it.
  coverageAnalysis: 'perTest',
  // Mutants in module-level code (constant tables) would run every test: skipped unless
  // MUTATE_STATIC=1, which a narrowed run of such a module (the seccomp filter's syscall table) sets.
  ignoreStatic: process.env.MUTATE_STATIC !== '1',
  ignorers: ['ErrorMessage'],
  concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 2),
  // A mutant that loops forever is killed after this; the slowest kept test file takes about 3 s.
  timeoutMS: 10_000,
  dryRunTimeoutMinutes: 10,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: true },
  ignorePatterns: ['test-results', 'playwright-report', 'reports', 'e2e', 'bench', '.git', 'dist'],
  thresholds: { high: 90, low: 70, break: null },
};
