/**
 * The explorer's calls: a facet click asks the gate for the narrowed view with its counts, a short
 * search is answered without a round trip, scrolling pages on from the cursor, an answer to a view the
 * person left is dropped, and calls arriving meanwhile are counted.
 */
import { describe, expect, it } from 'vitest';
import type { CallRow, ExplorerPage } from '../../shared/explorer';
import { ExplorerFeed, filtersToLoosen, searchTextProblem, toggleFacet } from '../../renderer/store/explorerFeed';
import { fakeBridge } from './fakeBridge';
import { auditRecord } from './fixtures';

function callRow(seq: number, overrides: Partial<CallRow> = {}): CallRow {
  return { callId: `c${seq}`, seq, lastSeq: seq + 3, time: '2026-11-23T10:00:00.000Z', tool: 'read_file', argsBrief: 'path=README.md', outcome: 'completed', ...overrides };
}

const stats = { overTime: { bucketMs: 60_000, buckets: [] }, waits: [], topTools: [], denialsByRule: [], sessions: [], tookMs: 1 };

function feedOver(page: (request: { cursor?: { beforeSeq: number } }) => Promise<ExplorerPage> | ExplorerPage) {
  const fake = fakeBridge({
    exploreCalls: async (request) => page(request),
    explorerStats: async () => stats,
  });
  return { ...fake, feed: new ExplorerFeed(fake.bridge) };
}

describe('the explorer feed', () => {
  it('asks for the narrowed view with facet counts when a facet value is clicked, and for the wider one when it is clicked again', async () => {
    const { feed, calls } = feedOver(() => ({ rows: [callRow(9, { tool: 'write_file' })], total: 1, facets: { tool: [{ value: 'write_file', count: 1 }] }, tookMs: 2 }));
    const narrowed = toggleFacet({ outcome: ['failed'] }, 'tool', 'write_file');
    await feed.show(narrowed);
    expect(calls.find((c) => c.method === 'exploreCalls')?.params).toEqual({ filter: { outcome: ['failed'], tool: ['write_file'] }, limit: 200, facets: true });
    expect(calls.find((c) => c.method === 'explorerStats')?.params).toEqual({ filter: { outcome: ['failed'], tool: ['write_file'] } });
    expect(feed.store.getState()).toMatchObject({ total: 1, facets: { tool: [{ value: 'write_file', count: 1 }] } });
    expect(toggleFacet(narrowed, 'tool', 'write_file')).toEqual({ outcome: ['failed'] });
  });

  it('says a search under three characters is too short without asking the gate', async () => {
    const { feed, calls } = feedOver(() => ({ rows: [], tookMs: 1 }));
    await feed.show({ text: ' ab ' });
    expect(calls).toEqual([]);
    expect(feed.store.getState().problem).toMatch(/at least 3 characters/);
    expect(searchTextProblem('abc')).toBeUndefined();
    expect(searchTextProblem('')).toBeUndefined();
  });

  it('loads the next page from the cursor as the person scrolls, and stops at the last', async () => {
    const { feed, calls } = feedOver(({ cursor }) =>
      cursor ? { rows: [callRow(3)], tookMs: 1 } : { rows: [callRow(9), callRow(5)], next: { beforeSeq: 5 }, total: 3, tookMs: 1 },
    );
    await feed.show({});
    await feed.loadMore();
    expect(calls.filter((c) => c.method === 'exploreCalls').at(-1)?.params).toEqual({ filter: {}, limit: 200, cursor: { beforeSeq: 5 } });
    expect(feed.store.getState().rows.map((r) => r.seq)).toEqual([9, 5, 3]);
    await feed.loadMore();
    expect(calls.filter((c) => c.method === 'exploreCalls')).toHaveLength(2);
  });

  it('drops an answer to a view the person has already left', async () => {
    let answerSlow: (page: ExplorerPage) => void = () => {};
    const { feed } = feedOver((request) =>
      (request as { filter: { tool?: string[] } }).filter.tool?.[0] === 'slow'
        ? new Promise<ExplorerPage>((resolve) => (answerSlow = resolve))
        : { rows: [callRow(7, { tool: 'fast' })], tookMs: 1 },
    );
    const slow = feed.show({ tool: ['slow'] });
    await feed.show({ tool: ['fast'] });
    answerSlow({ rows: [callRow(1, { tool: 'slow' })], tookMs: 1 });
    await slow;
    expect(feed.store.getState().rows.map((r) => r.tool)).toEqual(['fast']);
    expect(feed.store.getState().filter).toEqual({ tool: ['fast'] });
  });

  it('counts calls that arrive after the page (their first record only), and a refresh shows them', async () => {
    let newest = 5;
    const { feed } = feedOver(() => ({ rows: [callRow(newest)], tookMs: 1 }));
    await feed.show({});
    feed.noteAppended({ ...auditRecord(6), kind: 'invoked' });
    feed.noteAppended({ ...auditRecord(7), kind: 'policy' });
    feed.noteAppended({ ...auditRecord(8), kind: 'invoked' });
    // A call's first record holding several steps counts once; its later records do not.
    feed.noteAppended({ ...auditRecord(9), kind: 'call' });
    feed.noteAppended({ ...auditRecord(10), kind: 'call-begun' });
    feed.noteAppended({ ...auditRecord(11), kind: 'call-step' });
    feed.noteAppended({ ...auditRecord(12), kind: 'call-ended' });
    expect(feed.store.getState().newCalls).toBe(4);
    newest = 8;
    await feed.refresh();
    expect(feed.store.getState()).toMatchObject({ newCalls: 0, rows: [{ seq: 8 }] });
  });

  it("asks for one session's calls under the view's filter, for its strip of marks", async () => {
    const { feed, calls } = feedOver(() => ({ rows: [callRow(4, { session: 's1' })], tookMs: 1 }));
    await feed.show({ tool: ['read_file'] });
    const rows = await feed.sessionCalls('s1');
    expect(rows.map((r) => r.callId)).toEqual(['c4']);
    expect(calls.at(-1)?.params).toEqual({ filter: { tool: ['read_file'], session: ['s1'] }, limit: 300 });
  });

  it('says why a page could not be loaded', async () => {
    const { feed } = feedOver(() => {
      throw new Error('the audit index is being built');
    });
    await feed.show({});
    expect(feed.store.getState().error).toBe('Could not load the calls: the audit index is being built');
  });

  it('keeps the rows after a failed next page, and asks for that page again on "Try again"', async () => {
    let fail = true;
    const { feed } = feedOver(({ cursor }) => {
      if (!cursor) return { rows: [callRow(9)], next: { beforeSeq: 9 }, tookMs: 1 };
      if (fail) throw new Error('the connection to the gate closed before it answered');
      return { rows: [callRow(4)], tookMs: 1 };
    });
    await feed.show({});
    await feed.loadMore();
    expect(feed.store.getState()).toMatchObject({ rows: [{ seq: 9 }], error: 'Could not load more calls: the connection to the gate closed before it answered' });
    fail = false;
    await feed.retry();
    expect(feed.store.getState().rows.map((r) => r.seq)).toEqual([9, 4]);
    expect(feed.store.getState().error).toBeUndefined();
  });

  it('names the filters an empty result could loosen', () => {
    expect(filtersToLoosen({ tool: ['a'], text: 'abc', from: 'x', to: 'y', outcome: [] })).toEqual(['tool', 'search text', 'time range']);
    expect(filtersToLoosen({})).toEqual([]);
  });
});
