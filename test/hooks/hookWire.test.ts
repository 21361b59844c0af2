/**
 * The hook process checks the gate's answers and its grants without zod (it would double the hook's
 * start): each check must accept exactly what its schema accepts, so nothing the schema would refuse
 * reaches Claude Code as a decision, a grant or a command's output.
 */
import { describe, expect, it } from 'vitest';
import { BashRunReplySchema, RunGrantSchema } from '../../main/hooks/bashRun';
import { GateAnswerSchema } from '../../main/hooks/hookInput';
import { isRunGrant, readGateAnswer, readRunReply } from '../../main/hooks/hookWire';

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

/** Grants `toolgate hook run` may be given, and the gate's replies to it: well-formed, and off by one field. */
const GRANTS: unknown[] = [
  GRANT,
  { ...GRANT, grant: 'a'.repeat(31) },
  { ...GRANT, grant: `${'a'.repeat(31)}g` },
  { ...GRANT, sha256: 'B'.repeat(64) },
  { ...GRANT, sha256: undefined },
  { ...GRANT, extra: 1 },
  { grant: 7, sha256: GRANT.sha256 },
  null,
  [GRANT.grant, GRANT.sha256],
];
const REPLIES: unknown[] = [
  { ran: true, exitCode: 0, stdout: 'out', stderr: '' },
  { ran: true, exitCode: -1, stdout: '', stderr: 'killed' },
  { ran: false, message: 'no such grant' },
  { ran: true, exitCode: 0.5, stdout: '', stderr: '' },
  { ran: true, exitCode: '0', stdout: '', stderr: '' },
  { ran: true, exitCode: 0, stdout: '' },
  { ran: true, exitCode: 0, stdout: '', stderr: '', message: 'x' },
  { ran: false },
  { ran: false, message: 'x', stdout: 'hidden' },
  { ran: 'true', exitCode: 0, stdout: '', stderr: '' },
  { exitCode: 0, stdout: '', stderr: '' },
  null,
];

describe("toolgate hook run's checks of its grant and of the gate's reply", () => {
  it.each(GRANTS.map((grant) => [JSON.stringify(grant) ?? String(grant), grant]))('agrees with RunGrantSchema on %s', (_label, grant) => {
    expect(isRunGrant(grant)).toBe(RunGrantSchema.safeParse(grant).success);
  });
  it.each(REPLIES.map((reply) => [JSON.stringify(reply) ?? String(reply), reply]))('agrees with BashRunReplySchema on %s', (_label, reply) => {
    expect(readRunReply(reply) !== undefined).toBe(BashRunReplySchema.safeParse(reply).success);
  });
});
