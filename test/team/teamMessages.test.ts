/**
 * What a gate accepts from the team, in process: decisions counted only when signed by an approver's
 * key (or the gate's own) for the call waiting, messages bounded and schema-checked, and the
 * publish rights the shipped server config gives each member.
 */
import { describe, expect, it } from 'vitest';
import { publishAllowed } from '../../main/team/serverConfig';
import { newSigningKey, signingKeyFromSeed } from '../../main/team/teamKeys';
import { checkDecision, readDecision, readPromptMessage, signDecision } from '../../main/team/teamMessages';

const carol = newSigningKey();
const gateKey = newSigningKey();
const mallory = newSigningKey();
const approvers = [{ name: 'carol', publicKey: carol.publicKey }];
const expected = { gate: 'a', approvalId: 'p1', bindingHash: 'b1', ownPublicKey: gateKey.publicKey, approvers };

function decisionBy(key: { seed: string; publicKey: string }, fields: Partial<{ gate: string; approvalId: string; bindingHash: string; approver: string }> = {}) {
  return signDecision(
    { gate: 'a', approvalId: 'p1', bindingHash: 'b1', decision: 'approve', by: 'x', approver: 'carol', decidedAt: '2026-01-01T00:00:00.000Z', ...fields },
    signingKeyFromSeed(key.seed),
    key.publicKey,
  );
}

describe('a decision from the team', () => {
  it('counts when an approver signed it for the call waiting, or the gate itself did', () => {
    expect(checkDecision(decisionBy(carol), expected)).toEqual({ ok: true, signer: 'carol' });
    expect(checkDecision(decisionBy(gateKey, { approver: 'console of a' }), expected)).toEqual({ ok: true, signer: 'console of a' });
  });

  it('is refused when signed by a key not in the approver list, whatever name it claims', () => {
    const check = checkDecision(decisionBy(mallory), expected);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.problem).toContain('not one of the team\'s approvers');
  });

  it('is refused when altered after signing, when it answers another prompt, or binds another call', () => {
    const altered = { ...decisionBy(carol), decision: 'deny' as const };
    expect(checkDecision(altered, expected)).toMatchObject({ ok: false, problem: 'its signature does not verify' });
    expect(checkDecision(decisionBy(carol, { approvalId: 'p2' }), expected)).toMatchObject({ ok: false });
    expect(checkDecision(decisionBy(carol, { bindingHash: 'other' }), expected)).toMatchObject({ ok: false, problem: expect.stringContaining('binding hash') });
  });
});

describe('messages from the team', () => {
  it('are dropped, with why, when too large, not JSON or not of their schema', () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    expect(readPromptMessage(bytes('x'.repeat(200 * 1024)))).toMatchObject({ ok: false, problem: expect.stringContaining('at most') });
    expect(readPromptMessage(bytes('{"gate":'))).toMatchObject({ ok: false, problem: expect.stringContaining('not UTF-8 JSON') });
    expect(readPromptMessage(new Uint8Array([0xff, 0xfe]))).toMatchObject({ ok: false });
    expect(readDecision(bytes(JSON.stringify({ ...decisionBy(carol), extra: 1 })))).toMatchObject({ ok: false, problem: expect.stringContaining('schema') });
    expect(readDecision(bytes(JSON.stringify(decisionBy(carol))))).toMatchObject({ ok: true });
  });
});

describe('the server config shipped in the docs', () => {
  it('lets a gate publish only under its own name, an approver only decisions, and neither manage streams', () => {
    const gate = publishAllowed('acme', 'a', ['gate']);
    expect(gate).toContain('toolgate.acme.*.a');
    expect(gate).toContain('$KV.toolgate_acme_decisions.a.>');
    expect(gate.some((subject) => subject.includes('.b') || subject === '$KV.toolgate_acme_decisions.>')).toBe(false);
    const approver = publishAllowed('acme', 'carol', ['approver']);
    expect(approver).toContain('$KV.toolgate_acme_decisions.>');
    expect(approver.some((subject) => subject.startsWith('toolgate.'))).toBe(false);
    for (const allowed of [gate, approver]) {
      expect(allowed.some((subject) => /STREAM\.(CREATE|UPDATE|DELETE|PURGE)|MSG\.DELETE|^>$|^\$JS\.API\.>$/.test(subject))).toBe(false);
    }
  });
});
