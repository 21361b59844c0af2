import { afterEach, describe, expect, it } from 'vitest';
import { gateErrorOf } from '../fixtures/gateErrors';
import { ApprovalQueue, DEFAULT_MAX_PENDING, DEFAULT_MAX_PENDING_PER_SESSION, type ApprovalAsk } from '../../main/approvals/approvalQueue';

function askFrom(agentSession: string | undefined, n: number): ApprovalAsk {
  return {
    callId: `call-${agentSession}-${n}`,
    tool: 'write_file',
    toolVersion: '1.0.0',
    tier: 'ELEVATED',
    rule: 'tier:ELEVATED→ask',
    ...(agentSession ? { agentSession } : {}),
    arguments: { path: `${n}.txt` },
    preview: { kind: 'none', reason: 'test' },
    bindingHash: 'b'.repeat(64),
  };
}

const queues: ApprovalQueue[] = [];
function queue(options: { maxPendingPerSession?: number; maxPending?: number } = {}): ApprovalQueue {
  const created = new ApprovalQueue({ timeoutMs: 60_000, ...options });
  queues.push(created);
  return created;
}
afterEach(() => {
  for (const created of queues.splice(0)) created.close();
});

describe('ApprovalQueue caps', () => {
  it('defaults to 50 prompts per agent session and 500 in all', async () => {
    expect([DEFAULT_MAX_PENDING_PER_SESSION, DEFAULT_MAX_PENDING]).toEqual([50, 500]);
    const approvals = queue();
    for (let n = 0; n < 50; n++) approvals.ask(askFrom('agent-a', n));
    expect((await gateErrorOf(() => approvals.ask(askFrom('agent-a', 50)))).code).toBe('EQUOTA');
  });

  it('refuses one session past its cap at once with EQUOTA saying how many wait and that the person must answer some first', async () => {
    const approvals = queue({ maxPendingPerSession: 3, maxPending: 100 });
    for (let n = 0; n < 3; n++) approvals.ask(askFrom('agent-a', n));
    const refusal = await gateErrorOf(() => approvals.ask(askFrom('agent-a', 3)));
    expect(refusal.code).toBe('EQUOTA');
    expect(refusal.message).toContain('already has 3 prompts waiting');
    expect(refusal.message).toContain('at most 3 per session');
    expect(refusal.message).toMatch(/must answer or deny some of them first/);
    expect(approvals.list()).toHaveLength(3);
    // Another agent is not held back by the first one's flood.
    expect(() => approvals.ask(askFrom('agent-b', 0))).not.toThrow();
  });

  it('refuses every session once the gate-wide cap is reached, and makes room again as prompts are answered', async () => {
    const approvals = queue({ maxPendingPerSession: 10, maxPending: 4 });
    const asked = [0, 1, 2, 3].map((n) => approvals.ask(askFrom(`agent-${n}`, n)));
    const refusal = await gateErrorOf(() => approvals.ask(askFrom('agent-new', 0)));
    expect(refusal.code).toBe('EQUOTA');
    expect(refusal.message).toContain('4 prompts from all agents are already waiting');
    expect(refusal.message).toContain('at most 4 in all');
    approvals.decide(asked[0]!.request.approvalId, 'deny', 'no');
    expect(() => approvals.ask(askFrom('agent-new', 0))).not.toThrow();
  });

  it('counts a session again from zero once its prompts are answered, expired or withdrawn', async () => {
    const approvals = queue({ maxPendingPerSession: 2, maxPending: 100 });
    const first = approvals.ask(askFrom('agent-a', 0));
    const second = approvals.ask(askFrom('agent-a', 1));
    expect(approvals.quotaRefusal('agent-a')?.code).toBe('EQUOTA');
    approvals.decide(first.request.approvalId, 'approve');
    approvals.withdraw(second.request.approvalId, 'cancelled');
    expect(approvals.quotaRefusal('agent-a')).toBeUndefined();
    expect((await first.outcome).outcome).toBe('approved');
  });

  it('calls without a session share one count', async () => {
    const approvals = queue({ maxPendingPerSession: 2, maxPending: 100 });
    approvals.ask(askFrom(undefined, 0));
    approvals.ask(askFrom(undefined, 1));
    expect((await gateErrorOf(() => approvals.ask(askFrom(undefined, 2)))).code).toBe('EQUOTA');
  });
});

describe('ApprovalQueue.denyAllFrom', () => {
  it("denies every prompt of one agent session with the reason and leaves other agents' prompts waiting", async () => {
    const approvals = queue();
    const fromA = [0, 1, 2].map((n) => approvals.ask(askFrom('agent-a', n)));
    const fromB = approvals.ask(askFrom('agent-b', 0));
    const outcomes = approvals.denyAllFrom('agent-a', 'flooding');
    expect(outcomes.map((o) => o.outcome)).toEqual(['denied', 'denied', 'denied']);
    for (const asked of fromA) expect(await asked.outcome).toMatchObject({ outcome: 'denied', reason: 'flooding' });
    expect(approvals.list().map((r) => r.approvalId)).toEqual([fromB.request.approvalId]);
    // The session may ask again: its count went back to zero.
    expect(approvals.quotaRefusal('agent-a')).toBeUndefined();
  });

  it('says why when no reason was given, and denies nothing for a session with no prompts', async () => {
    const approvals = queue();
    const asked = approvals.ask(askFrom('agent-a', 0));
    expect(approvals.denyAllFrom('agent-unknown')).toEqual([]);
    approvals.denyAllFrom('agent-a', '   ');
    expect((await asked.outcome).reason).toBe('the person denied every prompt from this agent');
  });
});
