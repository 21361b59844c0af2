import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallEdit } from '../../shared/approval';
import type { AuditRecord } from '../../shared/audit';
import type { BridgeParsedRequest } from '../../shared/contract';
import { DECLARED_AGENT_SESSION_PREFIX } from '../../shared/agentName';
import { ApprovalQueue, type ApprovalAsk, type ApprovalSubject, type CallReviser } from '../../main/approvals/approvalQueue';
import type { RevisedCall } from '../../main/approvals/callReviser';
import { checkPromptEdit, checkPromptRules, decideApproval, type ScopedApprovalDeps } from '../../main/approvals/scopedApproval';
import type { PolicyEngine } from '../../main/policy/policyEngine';
import { builtinLookup, policyEngine, policyFolders, type PolicyFolders } from '../policy/policyFixture';

/**
 * A person's answer to a prompt, as the console sends it, against a real approval queue and policy
 * engine: which answers are refused, what a scoped approval grants or saves, and for whom.
 */

const shell = builtinLookup('shell_exec')!;
const COMMAND = 'make release';
const RULE = `shell_exec(${COMMAND})`;
const SESSION = 'session-a';

let folders: PolicyFolders;
let engine: PolicyEngine;
let approvals: ApprovalQueue;
let recentRecords: AuditRecord[];

beforeEach(async () => {
  folders = policyFolders();
  engine = await policyEngine(folders);
  approvals = new ApprovalQueue({ timeoutMs: 60_000 });
  recentRecords = [];
});
afterEach(() => {
  approvals.close();
  engine.close();
  folders.remove();
});

function deps(withEngine = true): ScopedApprovalDeps {
  return { approvals, ...(withEngine ? { engine } : {}), recent: () => recentRecords };
}

/** Asks about the shell command; `null`: the gate did not keep the call whole (no subject). */
function ask(overrides: Partial<ApprovalAsk> = {}, subject: ApprovalSubject | null = { manifest: shell, input: { command: COMMAND } }) {
  const ask: ApprovalAsk = {
    callId: 'call-1',
    tool: 'shell_exec',
    toolVersion: '1.0.0',
    tier: 'ELEVATED',
    rule: 'tier:ELEVATED→ask',
    arguments: { command: COMMAND },
    preview: { kind: 'none', reason: 'test' },
    bindingHash: 'b'.repeat(64),
    agentSession: SESSION,
    ...overrides,
  };
  return approvals.ask(ask, subject ?? undefined);
}

type Decision = BridgeParsedRequest<'decideApproval'>;

/** How the engine decides the prompt's command for an agent session now. */
async function effectFor(agentSession: string | undefined, command = COMMAND): Promise<string> {
  const input = { command };
  const facts = await engine.prepare(shell, input);
  return engine.decide(shell, input, { ...facts, ...(agentSession ? { agentSession } : {}) }).decision;
}

function sessionRules() {
  return engine.rulesInForce().filter((rule) => rule.source.layer === 'session');
}

describe('answering a prompt', () => {
  it('refuses an answer to a call other than the one shown (binding hash changed), and takes the right one', async () => {
    const { request, outcome } = ask();
    await expect(decideApproval(deps(), { approvalId: request.approvalId, decision: 'approve', bindingHash: 'c'.repeat(64) })).rejects.toMatchObject({ code: 'EVALIDATION' });
    expect(approvals.list()).toHaveLength(1);
    await decideApproval(deps(), { approvalId: request.approvalId, decision: 'approve', bindingHash: request.bindingHash });
    await expect(outcome).resolves.toMatchObject({ outcome: 'approved' });
  });

  it('denies with what the person tells the agent, and without it when nothing was written', async () => {
    const told = ask();
    await decideApproval(deps(), { approvalId: told.request.approvalId, decision: 'deny', tellAgent: 'use make test instead' });
    await expect(told.outcome).resolves.toMatchObject({ outcome: 'denied', tellAgent: 'use make test instead' });
    const plain = ask({ callId: 'call-2' });
    await decideApproval(deps(), { approvalId: plain.request.approvalId, decision: 'deny', reason: 'no' });
    const denied = await plain.outcome;
    expect(denied).toMatchObject({ outcome: 'denied', reason: 'no' });
    expect(denied).not.toHaveProperty('tellAgent');
  });

  it('approves once, with or without a "once" scope, and grants nothing', async () => {
    for (const scope of [undefined, { kind: 'once' as const }]) {
      const { request, outcome } = ask();
      await decideApproval(deps(false), { approvalId: request.approvalId, decision: 'approve', ...(scope ? { scope } : {}), rules: [RULE] });
      await expect(outcome).resolves.toMatchObject({ outcome: 'approved' });
    }
    expect(sessionRules()).toEqual([]);
    expect(await effectFor(SESSION)).toBe('ask');
  });
});

describe('an approval for this session', () => {
  it('grants the rule to the prompt’s agent session only', async () => {
    const { request, outcome } = ask();
    await decideApproval(deps(), { approvalId: request.approvalId, decision: 'approve', scope: { kind: 'session' }, rules: [RULE] });
    await expect(outcome).resolves.toMatchObject({ outcome: 'approved', scope: { kind: 'session' }, rules: [RULE] });
    expect(await effectFor(SESSION)).toBe('allow');
    expect(await effectFor('session-b')).toBe('ask');
    expect(await effectFor(undefined)).toBe('ask');
    expect(sessionRules().map((rule) => rule.source)).toEqual([expect.objectContaining({ agentSession: SESSION, approvalId: request.approvalId })]);
    expect(sessionRules()[0]!.source.expiresAt).toBeUndefined();
  });

  it('is refused for a call with no agent session, or from a sessionless agent known only by a declared name', async () => {
    for (const agentSession of [undefined, `${DECLARED_AGENT_SESSION_PREFIX}claude`]) {
      const { request } = ask(agentSession === undefined ? { agentSession: undefined } : { agentSession });
      await expect(decideApproval(deps(), { approvalId: request.approvalId, decision: 'approve', scope: { kind: 'session' }, rules: [RULE] })).rejects.toMatchObject({
        code: 'EVALIDATION',
      });
      expect(approvals.list().map((waiting) => waiting.approvalId)).toContain(request.approvalId);
    }
    expect(sessionRules()).toEqual([]);
  });

  it('saves nothing when the rules do not allow the call being approved', async () => {
    const { request } = ask();
    await expect(
      decideApproval(deps(), { approvalId: request.approvalId, decision: 'approve', scope: { kind: 'session' }, rules: ['shell_exec(make test)'] }),
    ).rejects.toMatchObject({ code: 'EVALIDATION' });
    await expect(decideApproval(deps(), { approvalId: request.approvalId, decision: 'approve', scope: { kind: 'session' } })).rejects.toThrow(/write at least one rule/);
    expect(sessionRules()).toEqual([]);
    expect(approvals.list()).toHaveLength(1);
  });

  it('is refused on a gate with a fixed policy, and for a prompt whose call the gate did not keep whole', async () => {
    const fixed = ask();
    await expect(decideApproval(deps(false), { approvalId: fixed.request.approvalId, decision: 'approve', scope: { kind: 'session' }, rules: [RULE] })).rejects.toMatchObject({
      code: 'EVALIDATION',
    });
    const partial = ask({ callId: 'call-2' }, null);
    await expect(decideApproval(deps(), { approvalId: partial.request.approvalId, decision: 'approve', scope: { kind: 'session' }, rules: [RULE] })).rejects.toMatchObject({
      code: 'EVALIDATION',
    });
    expect(approvals.list()).toHaveLength(2);
  });

  it('takes its grant back when the prompt went while the rules were being checked', async () => {
    const { request, outcome } = ask();
    const answering = decideApproval(deps(), { approvalId: request.approvalId, decision: 'approve', scope: { kind: 'session' }, rules: [RULE] });
    approvals.withdraw(request.approvalId, 'the agent cancelled the call');
    await expect(answering).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(outcome).resolves.toMatchObject({ outcome: 'withdrawn' });
    expect(sessionRules()).toEqual([]);
    expect(await effectFor(SESSION)).toBe('ask');
  });
});

describe('an approval for a while', () => {
  it('holds for every agent until it expires: 15 minutes, an hour, or until the gate stops', async () => {
    const lasts: Array<[Decision['scope'] & { kind: 'timed' }, number | undefined]> = [
      [{ kind: 'timed', duration: '15m' }, 15 * 60_000],
      [{ kind: 'timed', duration: '1h' }, 60 * 60_000],
      [{ kind: 'timed', duration: 'gate' }, undefined],
    ];
    for (const [scope, duration] of lasts) {
      const before = Date.now();
      const { request } = ask();
      await decideApproval(deps(), { approvalId: request.approvalId, decision: 'approve', scope, rules: [RULE] });
      const after = Date.now();
      const [grant] = sessionRules().filter((rule) => rule.source.approvalId === request.approvalId);
      expect(grant!.source.agentSession).toBeUndefined();
      if (duration === undefined) {
        expect(grant!.source.expiresAt).toBeUndefined();
      } else {
        const expires = Date.parse(grant!.source.expiresAt!);
        expect(expires).toBeGreaterThanOrEqual(before + duration);
        expect(expires).toBeLessThanOrEqual(after + duration);
      }
    }
    expect(await effectFor('session-b')).toBe('allow');
  });

  it('may be given to a call with no agent session, or from an agent known only by a declared name', async () => {
    for (const agentSession of [undefined, `${DECLARED_AGENT_SESSION_PREFIX}claude`]) {
      const { request, outcome } = ask(agentSession === undefined ? { agentSession: undefined } : { agentSession });
      await decideApproval(deps(), { approvalId: request.approvalId, decision: 'approve', scope: { kind: 'timed', duration: '15m' }, rules: [RULE] });
      await expect(outcome).resolves.toMatchObject({ outcome: 'approved' });
    }
    expect(await effectFor(undefined)).toBe('allow');
  });
});

describe('an approval for always', () => {
  it('writes the rule to the chosen policy file, trimmed, and grants nothing in memory', async () => {
    const { request, outcome } = ask();
    await decideApproval(deps(), { approvalId: request.approvalId, decision: 'approve', scope: { kind: 'always', file: 'user' }, rules: [`  ${RULE}\n\n`] });
    await expect(outcome).resolves.toMatchObject({ outcome: 'approved', rules: [RULE] });
    expect(readFileSync(folders.user, 'utf8')).toContain(RULE);
    expect(sessionRules()).toEqual([]);
    expect(await effectFor('session-b')).toBe('allow');
  });
});

describe('an edited call', () => {
  const revised = { summary: 'the command was edited' } as unknown as RevisedCall;
  function editable(edits: CallEdit[]): ApprovalSubject {
    const reviser: CallReviser = {
      check: async (edit) => {
        edits.push(edit);
        return { ok: true } as never;
      },
      revise: async (edit) => {
        edits.push(edit);
        return revised;
      },
    };
    return { manifest: shell, input: { command: COMMAND }, reviser };
  }

  it('runs the person’s version for this call only', async () => {
    const edits: CallEdit[] = [];
    const edit = { content: 'make release-dry' } as CallEdit;
    const { request, outcome } = ask({}, editable(edits));
    expect(await checkPromptEdit(deps(), request.approvalId, edit)).toEqual({ ok: true });
    await decideApproval(deps(), { approvalId: request.approvalId, decision: 'approve', scope: { kind: 'once' }, edit });
    expect(edits).toEqual([edit, edit]);
    await expect(outcome).resolves.toMatchObject({ outcome: 'approved', edited: 'the command was edited', revised });
  });

  it('is refused with a deny, with a lasting scope, or when the call cannot be edited', async () => {
    const edits: CallEdit[] = [];
    const edit = { content: 'make release-dry' } as CallEdit;
    const { request } = ask({}, editable(edits));
    await expect(decideApproval(deps(), { approvalId: request.approvalId, decision: 'deny', edit })).rejects.toMatchObject({ code: 'EVALIDATION' });
    await expect(decideApproval(deps(), { approvalId: request.approvalId, decision: 'approve', scope: { kind: 'session' }, rules: [RULE], edit })).rejects.toMatchObject({
      code: 'EVALIDATION',
    });
    expect(edits).toEqual([]);
    expect(sessionRules()).toEqual([]);
    const fixed = ask({ callId: 'call-2' });
    await expect(decideApproval(deps(), { approvalId: fixed.request.approvalId, decision: 'approve', edit })).rejects.toMatchObject({ code: 'EVALIDATION' });
    await expect(Promise.resolve().then(() => checkPromptEdit(deps(), fixed.request.approvalId, edit))).rejects.toMatchObject({ code: 'EVALIDATION' });
    const partial = ask({ callId: 'call-3' }, null);
    await expect(decideApproval(deps(), { approvalId: partial.request.approvalId, decision: 'approve', edit })).rejects.toMatchObject({ code: 'EVALIDATION' });
    expect(approvals.list()).toHaveLength(3);
  });
});

describe('checking typed rules on a prompt', () => {
  it('reports problems, broad rules and the recent calls the rules would also allow, saving nothing', async () => {
    recentRecords = [
      { kind: 'invoked', callId: 'old-call', time: '2026-11-28T10:00:00.000Z', payload: { tool: 'shell_exec', arguments: { command: COMMAND } } } as unknown as AuditRecord,
    ];
    const { request } = ask();
    const good = await checkPromptRules(deps(), request.approvalId, [RULE], { kind: 'session' });
    expect(good).toEqual({ problems: [], warnings: [], matches: [expect.objectContaining({ callId: 'old-call' })] });
    const broad = await checkPromptRules(deps(), request.approvalId, ['shell_exec(make *)'], { kind: 'timed', duration: '1h' });
    expect(broad.warnings).toHaveLength(1);
    const wrong = await checkPromptRules(deps(), request.approvalId, ['shell_exec(make test)'], { kind: 'session' });
    expect(wrong.problems).toHaveLength(1);
    expect(sessionRules()).toEqual([]);
    await expect(checkPromptRules(deps(false), request.approvalId, [RULE], { kind: 'session' })).rejects.toMatchObject({ code: 'EVALIDATION' });
    const partial = ask({ callId: 'call-2' }, null);
    await expect(checkPromptRules(deps(), partial.request.approvalId, [RULE], { kind: 'session' })).rejects.toMatchObject({ code: 'EVALIDATION' });
  });
});
