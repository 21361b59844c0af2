import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalOutcome, ApprovalRequest } from '../../shared/approval';
import { GateError } from '../../shared/errors';
import { agentLeftReason } from '../../main/approvals/agentLeft';
import { ApprovalQueue, type ApprovalAsk } from '../../main/approvals/approvalQueue';

const ASK: ApprovalAsk = {
  callId: 'call-1',
  tool: 'write_file',
  toolVersion: '1.0.0',
  tier: 'ELEVATED',
  rule: 'tier:ELEVATED→ask',
  arguments: { path: 'a.txt', content: 'x' },
  preview: { kind: 'none', reason: 'test' },
  bindingHash: 'b'.repeat(64),
};

const queues: ApprovalQueue[] = [];
function queue(timeoutMs = 60_000, events?: { requested: ApprovalRequest[]; resolved: ApprovalOutcome[] }): ApprovalQueue {
  const created = new ApprovalQueue({
    timeoutMs,
    onRequested: (request) => events?.requested.push(request),
    onResolved: (outcome) => events?.resolved.push(outcome),
  });
  queues.push(created);
  return created;
}
afterEach(() => {
  for (const created of queues.splice(0)) created.close();
});

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return error instanceof GateError ? error.code : 'not a GateError';
  }
  return undefined;
}

describe('ApprovalQueue', () => {
  it('issues an id and an expiry, lists the prompt and tells the listener', () => {
    const events = { requested: [] as ApprovalRequest[], resolved: [] as ApprovalOutcome[] };
    const approvals = queue(60_000, events);
    const { request } = approvals.ask(ASK);
    expect(request).toMatchObject(ASK);
    expect(request.approvalId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(request.expiresAt) - Date.parse(request.requestedAt)).toBe(60_000);
    expect(approvals.list()).toEqual([request]);
    expect(events.requested).toEqual([request]);
  });

  it('approve resolves the outcome as approved, with the reason if one was given', async () => {
    const approvals = queue();
    const { request, outcome } = approvals.ask(ASK);
    const decided = approvals.decide(request.approvalId, 'approve', '  looks fine  ');
    expect(decided).toMatchObject({ approvalId: request.approvalId, callId: 'call-1', outcome: 'approved', reason: 'looks fine' });
    await expect(outcome).resolves.toEqual(decided);
    expect(approvals.list()).toEqual([]);
  });

  it('deny resolves as denied with the person’s reason', async () => {
    const approvals = queue();
    const { request, outcome } = approvals.ask(ASK);
    approvals.decide(request.approvalId, 'deny', 'wrong file');
    await expect(outcome).resolves.toMatchObject({ outcome: 'denied', reason: 'wrong file' });
  });

  it('deny without a reason (or a blank one) gets a default reason the agent can read', async () => {
    const approvals = queue();
    const first = approvals.ask(ASK);
    const second = approvals.ask({ ...ASK, callId: 'call-2' });
    approvals.decide(first.request.approvalId, 'deny');
    approvals.decide(second.request.approvalId, 'deny', '   ');
    for (const { outcome } of [first, second]) {
      await expect(outcome).resolves.toMatchObject({ outcome: 'denied', reason: 'denied by the person at the console' });
    }
  });

  it('refuses an unknown id and a second answer with ENOTFOUND', () => {
    const approvals = queue();
    const { request } = approvals.ask(ASK);
    expect(codeOf(() => approvals.decide('no-such-id', 'approve'))).toBe('ENOTFOUND');
    approvals.decide(request.approvalId, 'approve');
    expect(codeOf(() => approvals.decide(request.approvalId, 'deny'))).toBe('ENOTFOUND');
  });

  it('expires a prompt nobody answered, then refuses a late answer', async () => {
    const events = { requested: [] as ApprovalRequest[], resolved: [] as ApprovalOutcome[] };
    const approvals = queue(50, events);
    const { request, outcome } = approvals.ask(ASK);
    const expired = await outcome;
    expect(expired).toMatchObject({ approvalId: request.approvalId, outcome: 'expired' });
    expect(expired.reason).toContain('nobody answered');
    expect(events.resolved).toEqual([expired]);
    expect(approvals.list()).toEqual([]);
    expect(codeOf(() => approvals.decide(request.approvalId, 'approve'))).toBe('ENOTFOUND');
  });

  it('never ends a prompt before the expiry it shows, even when its timer fires early', () => {
    vi.useFakeTimers();
    try {
      const approvals = queue(1_000);
      const { request } = approvals.ask(ASK);
      // The clock the prompt's expiry was read from runs 5 ms behind its timer (a timer counts from the event loop's clock).
      vi.setSystemTime(Date.now() - 5);
      vi.advanceTimersByTime(1_000);
      expect(approvals.list().map((waiting) => waiting.approvalId)).toEqual([request.approvalId]);
      vi.advanceTimersByTime(5);
      expect(approvals.list()).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('an answered prompt does not expire later', async () => {
    const events = { requested: [] as ApprovalRequest[], resolved: [] as ApprovalOutcome[] };
    const approvals = queue(50, events);
    const { request, outcome } = approvals.ask(ASK);
    approvals.decide(request.approvalId, 'approve');
    await new Promise((resolve) => setTimeout(resolve, 120));
    await expect(outcome).resolves.toMatchObject({ outcome: 'approved' });
    expect(events.resolved.map((resolved) => resolved.outcome)).toEqual(['approved']);
  });

  it('close() withdraws every pending prompt, is idempotent, and withdraws prompts asked afterwards', async () => {
    const approvals = queue();
    const first = approvals.ask(ASK);
    const second = approvals.ask({ ...ASK, callId: 'call-2' });
    approvals.close();
    approvals.close();
    for (const { outcome } of [first, second]) {
      await expect(outcome).resolves.toMatchObject({ outcome: 'withdrawn', reason: 'the gate is shutting down' });
    }
    const late = approvals.ask(ASK);
    await expect(late.outcome).resolves.toMatchObject({ outcome: 'withdrawn' });
    expect(approvals.list()).toEqual([]);
  });

  it('an answer that races in after a prompt ended is refused saying how it ended: withdrawn because the agent left, expired, or answered', async () => {
    const approvals = queue(50);
    const left = approvals.ask(ASK);
    approvals.withdraw(left.request.approvalId, agentLeftReason('its connection to the gate closed before the answer'));
    expect(() => approvals.decide(left.request.approvalId, 'approve')).toThrow(
      'that prompt is no longer waiting: it was withdrawn (the agent left: its connection to the gate closed before the answer); its call did not run and cannot be approved',
    );
    const answered = approvals.ask(ASK);
    approvals.decide(answered.request.approvalId, 'deny', 'not now');
    expect(() => approvals.decide(answered.request.approvalId, 'approve')).toThrow(/no longer waiting: it was already denied \(not now\)/);
    const expired = approvals.ask(ASK);
    await expired.outcome;
    expect(() => approvals.decide(expired.request.approvalId, 'approve')).toThrow(/no longer waiting: it expired \(nobody answered.*\); its call did not run/);
    expect(() => approvals.decide('never-issued', 'approve')).toThrow(/no longer waiting: it was answered, expired or never existed/);
  });

  it('withdraw() settles a waiting prompt as withdrawn and later answers are refused', async () => {
    const approvals = queue();
    const asked = approvals.ask(ASK);
    expect(approvals.withdraw(asked.request.approvalId, 'the agent cancelled the call')).toMatchObject({ outcome: 'withdrawn' });
    await expect(asked.outcome).resolves.toMatchObject({ outcome: 'withdrawn', reason: 'the agent cancelled the call' });
    expect(() => approvals.decide(asked.request.approvalId, 'approve')).toThrow(/no longer waiting/);
    expect(approvals.withdraw(asked.request.approvalId, 'again')).toBeUndefined();
  });

  it('a throwing onResolved listener does not keep the outcome from its caller', async () => {
    const approvals = new ApprovalQueue({
      timeoutMs: 60_000,
      onResolved: () => {
        throw new Error('listener broke');
      },
    });
    queues.push(approvals);
    const { request, outcome } = approvals.ask(ASK);
    try {
      approvals.decide(request.approvalId, 'approve');
    } catch {
      // whether the listener's error surfaces here is not the point; the caller's outcome is
    }
    await expect(outcome).resolves.toMatchObject({ outcome: 'approved' });
    expect(approvals.list()).toEqual([]);
  });
});
