import type { KeyObject } from 'node:crypto';
import type { z } from 'zod';
import { MAX_TEAM_ENDED_BYTES, MAX_TEAM_PROMPT_BYTES, TeamEndedMessageSchema, TeamPromptMessageSchema, type TeamPromptMessage } from '../../shared/team';
import { MAX_TEAM_DECISION_BYTES, TeamDecisionSchema, type TeamDecision } from '../../shared/teamDecision';
import type { ApprovalRequest } from '../../shared/approval';
import type { Approver } from './teamCredentials';
import { signValue, verifyValue } from './teamKeys';

/** How a message from the team is read: size first, then JSON, then its schema; anything else is dropped. */
function readBounded<S extends z.ZodType>(schema: S, bytes: Uint8Array, maxBytes: number, what: string): { ok: true; value: z.infer<S> } | { ok: false; problem: string } {
  if (bytes.length > maxBytes) return { ok: false, problem: `a ${what} of ${bytes.length} bytes (at most ${maxBytes})` };
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return { ok: false, problem: `a ${what} that is not UTF-8 JSON` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, problem: `a ${what} that does not fit its schema (${parsed.error.issues.slice(0, 3).map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')})` };
  return { ok: true, value: parsed.data };
}

/** A prompt message, or why it was dropped. */
export const readPromptMessage = (bytes: Uint8Array) => readBounded(TeamPromptMessageSchema, bytes, MAX_TEAM_PROMPT_BYTES, 'prompt message');
/** An ended message, or why it was dropped. */
export const readEndedMessage = (bytes: Uint8Array) => readBounded(TeamEndedMessageSchema, bytes, MAX_TEAM_ENDED_BYTES, 'prompt-ended message');
/** A decision value, or why it was dropped. */
export const readDecision = (bytes: Uint8Array) => readBounded(TeamDecisionSchema, bytes, MAX_TEAM_DECISION_BYTES, 'decision');

/** The longest unified diff a team card carries; the whole file before and after stay on the gate. */
const TEAM_DIFF_CHARS = 32 * 1024;

/**
 * The card a gate publishes: the request its console gets (already redacted), without the file's
 * whole before and after (the diff shows the change), cut to fit the message bound.
 */
export function teamPromptMessage(request: ApprovalRequest, origin: Pick<TeamPromptMessage, 'gate' | 'machine' | 'workspace'>): TeamPromptMessage {
  const preview: ApprovalRequest['preview'] =
    request.preview.kind === 'diff'
      ? { ...request.preview, before: '', after: '', unified: request.preview.unified.slice(0, TEAM_DIFF_CHARS) }
      : request.preview;
  const message: TeamPromptMessage = { ...origin, request: { ...request, preview }, publishedAt: new Date().toISOString() };
  if (Buffer.byteLength(JSON.stringify(message)) <= MAX_TEAM_PROMPT_BYTES) return message;
  const bare = { ...message, request: { ...message.request, preview: { kind: 'none' as const, reason: 'too large for the team; see it at the gate\'s own console' }, arguments: '(too large for the team; see it at the gate\'s own console)' } };
  return bare;
}

/** The fields of a decision that its signature covers. */
export type UnsignedDecision = Omit<TeamDecision, 'signature' | 'publicKey'>;

/** Signs a decision with this member's key. */
export function signDecision(unsigned: UnsignedDecision, key: KeyObject, publicKey: string): TeamDecision {
  const withKey = { ...unsigned, publicKey };
  return { ...withKey, signature: signValue(withKey, key) };
}

/**
 * Who a decision's signature proves, for the prompt of `gate` at `key`: the approver, the gate's own
 * console, or a reason to refuse it (bad signature, a key not in the approver list, a decision
 * written under another prompt's key).
 */
export function checkDecision(
  decision: TeamDecision,
  expected: { gate: string; approvalId: string; bindingHash: string; ownPublicKey: string; approvers: readonly Approver[] },
): { ok: true; signer: string } | { ok: false; problem: string } {
  if (decision.gate !== expected.gate || decision.approvalId !== expected.approvalId) return { ok: false, problem: `it names another prompt (${decision.gate}/${decision.approvalId})` };
  const { signature, ...signed } = decision;
  if (!verifyValue(signed, signature, decision.publicKey)) return { ok: false, problem: 'its signature does not verify' };
  const approver = expected.approvers.find((entry) => entry.publicKey === decision.publicKey);
  const own = decision.publicKey === expected.ownPublicKey;
  if (!approver && !own) return { ok: false, problem: `it is signed by a key that is not one of the team's approvers (${decision.publicKey.slice(0, 12)}…, claiming to be ${JSON.stringify(decision.approver)})` };
  if (decision.bindingHash !== expected.bindingHash) return { ok: false, problem: 'it answers another call than the one waiting (binding hash differs)' };
  return { ok: true, signer: approver ? approver.name : decision.approver };
}
