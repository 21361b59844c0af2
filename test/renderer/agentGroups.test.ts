import { describe, expect, it } from 'vitest';
import { approvableBatch, groupByAgent, headerOfEachRow, rowsOf } from '../../renderer/views/approvals/agentGroups';
import { argumentsCut, recordSight, seenWhole } from '../../renderer/views/approvals/sightings';
import { approval } from './fixtures';

const at = (second: number) => `2025-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;

describe('the queue across agents', () => {
  const prompts = [
    approval('b1', { agentSession: 'agent-b', requestedAt: at(5) }),
    approval('a2', { agentSession: 'agent-a', requestedAt: at(7) }),
    approval('none', { requestedAt: at(9) }),
    approval('a1', { agentSession: 'agent-a', requestedAt: at(1) }),
    approval('b2', { agentSession: 'agent-b', requestedAt: at(6) }),
  ];

  it('groups prompts by agent session, the longest-waiting agent first, each group oldest first; calls with no session get their own group', () => {
    const groups = groupByAgent(prompts);
    expect(groups.map((group) => [group.agentSession, group.prompts.map((request) => request.approvalId)])).toEqual([
      ['agent-a', ['a1', 'a2']],
      ['agent-b', ['b1', 'b2']],
      [undefined, ['none']],
    ]);
  });

  it('lists each header before its prompts, and knows which header each row sits under', () => {
    const rows = rowsOf(groupByAgent(prompts));
    expect(rows.map((row) => (row.kind === 'agent' ? `[${row.group.agentSession ?? '-'}]` : row.request.approvalId))).toEqual([
      '[agent-a]',
      'a1',
      'a2',
      '[agent-b]',
      'b1',
      'b2',
      '[-]',
      'none',
    ]);
    expect(headerOfEachRow(rows)).toEqual([0, 0, 0, 3, 3, 3, 6, 6]);
  });

  it('draws a lone prompt without a header (there is nothing to approve or deny "all" of)', () => {
    const rows = rowsOf(groupByAgent([approval('only', { agentSession: 'agent-a' })]));
    expect(rows.map((row) => row.kind)).toEqual(['prompt']);
    expect(headerOfEachRow(rows)).toEqual([undefined]);
  });

  it('offers "Approve all" only once every prompt of the group was shown in full, and then exactly those prompts', () => {
    const [agentA] = groupByAgent(prompts);
    expect(approvableBatch(agentA!, new Set(['a1']))).toBeUndefined();
    expect(approvableBatch(agentA!, new Set(['a1', 'a2', 'b1']))?.map((request) => request.approvalId)).toEqual(['a1', 'a2']);
    // A prompt that arrives afterwards, unseen, holds the group back again.
    const [grown] = groupByAgent([...prompts, approval('a3', { agentSession: 'agent-a', requestedAt: at(10) })]);
    expect(approvableBatch(grown!, new Set(['a1', 'a2']))).toBeUndefined();
  });
});

describe('what a person has seen of a card', () => {
  it('counts a card seen whole once every part of it was in view, in one look or scrolled through in several', () => {
    expect(seenWhole(recordSight(undefined, 300, -50, 400))).toBe(true);
    const top = recordSight(undefined, 900, 0, 500);
    expect(seenWhole(top)).toBe(false);
    const middle = recordSight(top, 900, 450, 800);
    expect(seenWhole(middle)).toBe(false);
    expect(seenWhole(recordSight(middle, 900, 780, 1200))).toBe(true);
  });

  it('does not join parts with a gap between them (a jump past the middle of a card)', () => {
    const jumped = recordSight(recordSight(undefined, 900, 0, 300), 900, 600, 900);
    expect(jumped.spans).toEqual([
      [0, 300],
      [600, 900],
    ]);
    expect(seenWhole(jumped)).toBe(false);
  });

  it('starts over when the card changes height (a preview opened), and ignores a card out of view', () => {
    const seen = recordSight(undefined, 300, 0, 300);
    expect(seenWhole(seen)).toBe(true);
    expect(seenWhole(recordSight(seen, 700, 0, 300))).toBe(false);
    expect(recordSight(undefined, 300, 400, 900).spans).toEqual([]);
    expect(seenWhole(undefined)).toBe(false);
  });

  it('knows arguments the gate cut for the console can never have been seen whole', () => {
    expect(argumentsCut({ label: 'short' })).toBe(false);
    expect(argumentsCut({ label: { 'toolgate/truncated': 'xxx', chars: 20_000, blake3: 'f'.repeat(64) } })).toBe(true);
    expect(argumentsCut({ items: [1, 2, { 'toolgate/omitted': '300 more elements (500 in all)' }] })).toBe(true);
  });
});
