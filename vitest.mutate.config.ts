import { defineConfig } from 'vitest/config';

/**
 * The tests `npm run mutate` runs against each mutant: the unit tests that load the guarded modules
 * in this process and finish in a second or two. Tests that start the built CLI, a tool process, a
 * sandbox or a whole gate are left out: they never see a mutant (the bundle in out/ is built from the
 * unmutated sources) or take seconds per mutant; each guarded module is held here by its own fast tests.
 * A few kept files also run the CLI once for a last check: `npm run mutate` builds out/ first.
 * Left out as well: files with a wall-clock limit (auditStartup, workspaceGuard), which fail on a
 * machine busy with mutants; the anchor and protected-path checks they reach are held by kept files.
 */
export default defineConfig({
  test: {
    include: [
      // the policy judge and its matchers
      'test/policy/argumentRules.test.ts',
      'test/policy/commandPaths.test.ts',
      'test/policy/generatedRules.test.ts',
      'test/policy/pathHostRules.test.ts',
      'test/policy/policyLayers.test.ts',
      'test/policy/precedence.test.ts',
      'test/policy/realPathRules.test.ts',
      'test/policy/shellExpansions.test.ts',
      'test/policy/shellRules.test.ts',
      'test/policy/tierPolicy.test.ts',
      'test/policy/everyPartJudged.test.ts',
      'test/policy/pathPatterns.test.ts',
      'test/policy/argumentRuleMatching.test.ts',
      'test/policy/hostRuleMatching.test.ts',
      'test/policy/shellAllowReadings.test.ts',
      'test/policy/redirectionsAndReachesJudged.test.ts',
      'test/policy/ruleEditorChecks.test.ts',
      'test/policy/ruleKinds.test.ts',
      'test/policy/unreadableLineHeld.test.ts',
      // the audit chain, its anchor and checkpoints
      'test/audit/auditTampering.test.ts',
      'test/audit/auditStore.test.ts',
      'test/audit/checkpointWriter.test.ts',
      'test/audit/auditLegacy.test.ts',
      'test/audit/tamperedLogVerdicts.test.ts',
      'test/audit/checkpointVerdicts.test.ts',
      'test/audit/checkpointReasons.test.ts',
      'test/audit/anchorRefusalWords.test.ts',
      // the secret redactor and placeholders
      'test/secrets/redactor.test.ts',
      'test/secrets/placeholders.test.ts',
      'test/secrets/secretForms.test.ts',
      'test/secrets/redactorBoundaries.test.ts',
      'test/secrets/searchFilesRedacted.test.ts',
      'test/secrets/streamedSecretCuts.test.ts',
      'test/secrets/placeholderRefusals.test.ts',
      'test/secrets/editFileRedacted.test.ts',
      // the shell reader's refusals and risk flags, protected paths, the seccomp filter
      'test/tools/shellRisks.test.ts',
      'test/tools/riskFlagEvidence.test.ts',
      'test/tools/shellUnreadable.test.ts',
      'test/tools/unreadableLineReasons.test.ts',
      'test/tools/hereDocumentEnds.test.ts',
      'test/tools/commandReaderReadings.test.ts',
      'test/tools/parseCommand.test.ts',
      'test/tools/wordShapes.test.ts',
      'test/tools/pathSafety.test.ts',
      'test/tools/protectedPathNames.test.ts',
      'test/hosts/seccompRefusals.test.ts',
      'test/hosts/seccompArchitectures.test.ts',
      // token checks on /mcp and /bridge, the hook's fail-closed answers
      'test/server/requestPathname.test.ts',
      'test/server/requestTokens.test.ts',
      'test/hooks/hookWire.test.ts',
      'test/hooks/hookFailClosed.test.ts',
      'test/hooks/hookPrintedAnswers.test.ts',
      'test/server/refusedRequestReasons.test.ts',
      'test/server/bridgeHandshake.test.ts',
      // approval binding, edited hunks, definition pins
      'test/approvals/editedArguments.test.ts',
      'test/approvals/scopedAnswers.test.ts',
      'test/approvals/editedCalls.test.ts',
      'test/upstream/definitionPin.test.ts',
      'test/upstream/reviews.test.ts',
    ],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
