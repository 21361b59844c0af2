/**
 * One call's detail (its records oldest first, a huge payload shown as its size, hash and head,
 * whether replay can re-run it) and the explorer's charts over a generated log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditStore } from '../../main/audit/auditStore';
import { callDetail, SHOWN_PAYLOAD_BYTES, shownPayload } from '../../main/audit/callDetail';
import { explorePage, iterateCalls } from '../../main/audit/explorerQuery';
import { explorerStats } from '../../main/audit/explorerStats';
import { canonicalize } from '../../shared/canonicalJson';
import { blake3Hex } from '../../shared/hash';
import type { CallRow } from '../../shared/explorer';
import { removeTempFolder } from '../fixtures/tempFolder';
import { appendCall, LOG_END, syntheticHome } from './explorerFixture';

let root: string;
let store: AuditStore;
let all: CallRow[];

beforeAll(async () => {
  const made = await syntheticHome(2000, 5);
  root = made.root;
  store = new AuditStore(made.paths);
  all = [...iterateCalls(store, {})];
});

afterAll(() => {
  store?.close();
  removeTempFolder(root);
});

describe('a call’s detail', () => {
  it('holds its row and every record oldest first, with its place in the log', () => {
    const row = all.find((call) => call.tool === 'write_file' && call.decider === 'person' && call.outcome === 'completed')!;
    const detail = callDetail(store, row.callId)!;
    expect(detail.row).toEqual(row);
    expect(detail.records.map((record) => record.kind)).toEqual(['invoked', 'capability', 'policy', 'approval-requested', 'approval-decided', 'started', 'completed']);
    expect(detail.records[0]!.seq).toBe(row.seq);
    expect(detail.records.at(-1)!.seq).toBe(row.lastSeq);
    expect(detail.records[3]!.payload).toMatchObject({ preview: { kind: 'diff', path: expect.any(String) } });
    expect(detail.logSize).toBe(store.lastSeq());
    expect(detail.records.every((record) => record.hash.length === 64 && record.prevHash.length === 64)).toBe(true);
    expect(callDetail(store, 'no-such-call')).toBeUndefined();
  });

  it('shows a payload over 64 KiB as its size, hash and head, and the rest whole', () => {
    const output = { content: 'x'.repeat(SHOWN_PAYLOAD_BYTES + 10) };
    appendCall(store, 'huge-call', 'read_file', { path: 'big.log' }, output);
    const detail = callDetail(store, 'huge-call')!;
    const completed = detail.records.find((record) => record.kind === 'completed')!;
    const text = canonicalize({ responseHash: 'h', output });
    expect(completed.payload).toEqual({ cut: true, bytes: Buffer.byteLength(text), hash: blake3Hex(text), head: text.slice(0, 2048) });
    expect(detail.records.find((record) => record.kind === 'invoked')!.payload).toMatchObject({ arguments: { path: 'big.log' } });
    // The record itself is whole in the log: only the pane's copy is cut.
    expect(store.forCall('huge-call').find((record) => record.kind === 'completed')!.payload).toEqual({ responseHash: 'h', output });
  });

  it("keeps an upstream result's findings in view when its payload is cut", () => {
    const findings = [{ kind: 'addressed-to-model', field: 'content.0.text', excerpt: 'ignore previous instructions', message: 'speaks to the model' }];
    const payload = { responseHash: 'h', findings, output: { content: [{ type: 'text', text: 'x'.repeat(SHOWN_PAYLOAD_BYTES) }] } };
    expect(shownPayload(payload)).toMatchObject({ cut: true, findings });
  });

  it('says whether replay can re-run it as the gate\'s replay judges the whole records, and that it cannot without the tools', () => {
    const completed = all.find((call) => call.tool === 'calculator' && call.outcome === 'completed')!;
    expect(callDetail(store, completed.callId)!.replay).toEqual({ possible: false, reason: expect.stringContaining('not available here') });
    // The judge is given the call's records whole, as the log holds them (not cut for the pane).
    const judged: string[][] = [];
    const replay = callDetail(store, completed.callId, (records) => {
      judged.push(records.map((record) => record.kind));
      return { possible: true, reason: 'pure' };
    })!.replay;
    expect(replay).toEqual({ possible: true, reason: 'pure' });
    expect(judged).toEqual([store.forCall(completed.callId).map((record) => record.kind)]);
  });
});

describe('the explorer’s charts', () => {
  it('count the calls over time by outcome in buckets that fit the range, and every call once', () => {
    // The generated calls alone (a test above appended one now, past the log's end).
    const generated = { to: LOG_END.toISOString() };
    const stats = explorerStats(store, generated);
    const total = explorePage(store, { filter: generated }).total!;
    // 30 days in at most 60 bars: 12 hours each.
    expect(stats.overTime.bucketMs).toBe(12 * 60 * 60 * 1000);
    expect(stats.overTime.buckets.length).toBeLessThanOrEqual(61);
    const counted = stats.overTime.buckets.reduce((sum, bucket) => sum + Object.values(bucket.counts).reduce((a, b) => a + b, 0), 0);
    expect(counted).toBe(total);
    const day = explorerStats(store, { from: '2026-11-19T12:00:00Z', to: LOG_END.toISOString() });
    expect(day.overTime.bucketMs).toBe(60 * 60 * 1000);
    expect(day.overTime.buckets).toHaveLength(24);
    expect(day.overTime.buckets[0]!.start).toBe('2026-11-19T12:00:00.000Z');
  });

  it('list approval waits, top tools, refusals by rule and sessions newest first, matching the rows', () => {
    const stats = explorerStats(store, {});
    const all = [...iterateCalls(store, {})];
    const waited = all.filter((call) => call.waitedMs !== undefined).length;
    expect(stats.waits.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(waited);
    const byTool = new Map<string, number>();
    for (const call of all) byTool.set(call.tool, (byTool.get(call.tool) ?? 0) + 1);
    expect(stats.topTools[0]).toEqual({ tool: 'read_file', count: byTool.get('read_file') });
    const ruleDenials = all.filter((call) => call.decision === 'deny').length;
    expect(stats.denialsByRule.filter((entry) => entry.rule.includes('project policy')).reduce((sum, entry) => sum + entry.count, 0)).toBe(ruleDenials);
    expect(stats.denialsByRule.map((entry) => entry.rule)).toContain('a person denied it');
    const lasts = stats.sessions.map((session) => session.last);
    expect(lasts).toEqual([...lasts].sort().reverse());
    const newest = stats.sessions.find((session) => session.session !== 'session-test')!;
    expect(newest.calls).toBe(all.filter((call) => call.session === newest.session).length);
    expect(newest.agent).toBeDefined();
  });

  it('take the same filter as the page', () => {
    const all = [...iterateCalls(store, {})];
    const stats = explorerStats(store, { tool: ['shell_exec'], outcome: ['rejected'] });
    expect(stats.topTools).toEqual([{ tool: 'shell_exec', count: all.filter((call) => call.tool === 'shell_exec' && call.outcome === 'rejected').length }]);
  });
});
