/**
 * The owning gate's side of team mode, in process, over a stand-in for the team's bucket: a local
 * answer takes the prompt's key or loses it to the team's (and then the team's decision is applied),
 * and with the server away only prompts the team never saw are answered here.
 */
import { describe, expect, it } from 'vitest';
import { ApprovalQueue } from '../../main/approvals/approvalQueue';
import { TeamGate } from '../../main/team/teamGate';
import type { TeamLink } from '../../main/team/teamLink';
import { teamNames } from '../../main/team/teamNames';
import { newSigningKey, signingKeyFromSeed } from '../../main/team/teamKeys';
import { signDecision } from '../../main/team/teamMessages';
import { parseTeamCredentials } from '../../main/team/teamCredentials';

const carol = newSigningKey();
const own = newSigningKey();
const credentials = parseTeamCredentials(
  JSON.stringify({ team: 'acme', member: 'a', nats: { user: 'a', password: 'password-a' }, signingKey: own.seed, approvers: [{ name: 'carol', publicKey: carol.publicKey }] }),
  'a.json',
);

/** A link whose bucket is a map with create-if-absent, and whose queue is a list. */
function standInLink(online: boolean) {
  const keys = new Map<string, string>();
  const queued: string[] = [];
  const published: Array<() => void> = [];
  const bucket = {
    create: async (key: string, value: string) => {
      if (keys.has(key)) throw new Error('wrong last sequence');
      keys.set(key, value);
    },
    get: async (key: string) => (keys.has(key) ? { operation: 'PUT', value: new TextEncoder().encode(keys.get(key)!) } : null),
  };
  const link = {
    names: teamNames('acme'),
    isOnline: online,
    bucket: async () => bucket,
    queueDecision: (key: string) => queued.push(key),
    publish: (_subject: string, _data: string, _id: string, sending?: () => void) => sending && published.push(sending),
  } as unknown as TeamLink;
  return { link, keys, queued, published };
}

function gateWith(online: boolean) {
  const approvals: ApprovalQueue = new ApprovalQueue({ timeoutMs: 60_000, signedDecision: (approvalId) => gate.signedDecision(approvalId) });
  const stand = standInLink(online);
  const gate: TeamGate = new TeamGate({ credentials, link: stand.link, approvals, audit: { append: () => ({}) as never }, workspace: '/ws', log: () => undefined });
  const asked = approvals.ask({ callId: 'c1', tool: 'write_file', toolVersion: '1.0.0', tier: 'ELEVATED', rule: 'tier', arguments: {}, preview: { kind: 'none', reason: 'test' }, bindingHash: 'b1' });
  return { approvals, gate, asked, ...stand };
}

describe('a local answer in team mode', () => {
  it('takes the prompt\'s key when it is free, and is recorded with its signature', async () => {
    const { approvals, gate, asked, keys } = gateWith(true);
    await gate.answerLocally({ approvalId: asked.request.approvalId, decision: 'approve' }, async () => approvals.decide(asked.request.approvalId, 'approve'));
    const outcome = await asked.outcome;
    expect(outcome.outcome).toBe('approved');
    expect(outcome.teamDecision).toMatchObject({ approver: 'console of a', publicKey: own.publicKey });
    expect(JSON.parse(keys.get(`a.${asked.request.approvalId}`)!)).toMatchObject({ decision: 'approve', by: 'a' });
  });

  it('loses to a decision already at the key: is told who and how, and the team\'s decision is the one applied', async () => {
    const { approvals, gate, asked, keys } = gateWith(true);
    const team = signDecision(
      { gate: 'a', approvalId: asked.request.approvalId, bindingHash: 'b1', decision: 'deny', reason: 'not now', by: 'carol', approver: 'carol', decidedAt: new Date().toISOString() },
      signingKeyFromSeed(carol.seed),
      carol.publicKey,
    );
    keys.set(`a.${asked.request.approvalId}`, JSON.stringify(team));
    await expect(gate.answerLocally({ approvalId: asked.request.approvalId, decision: 'approve' }, async () => approvals.decide(asked.request.approvalId, 'approve'))).rejects.toThrow(
      'carol (carol) already denied this prompt: not now',
    );
    const outcome = await asked.outcome;
    expect(outcome.outcome).toBe('denied');
    expect(outcome.teamDecision?.signature).toBe(team.signature);
  });
});

describe('a local answer with the team server away', () => {
  it('is refused for a prompt the team has seen, and taken for one it never saw, its decision queued', async () => {
    const seen = gateWith(false);
    seen.gate.promptRaised(seen.asked.request);
    for (const sending of seen.published) sending();
    await expect(seen.gate.answerLocally({ approvalId: seen.asked.request.approvalId, decision: 'approve' }, async () => seen.approvals.decide(seen.asked.request.approvalId, 'approve'))).rejects.toThrow(
      /team has seen this prompt/,
    );
    expect(seen.approvals.list()).toHaveLength(1);

    const unseen = gateWith(false);
    unseen.gate.promptRaised(unseen.asked.request);
    await unseen.gate.answerLocally({ approvalId: unseen.asked.request.approvalId, decision: 'approve' }, async () => unseen.approvals.decide(unseen.asked.request.approvalId, 'approve'));
    expect((await unseen.asked.outcome).outcome).toBe('approved');
    expect(unseen.queued).toEqual([`a.${unseen.asked.request.approvalId}`]);
  });
});
