/**
 * Group commit: append() chains a record at once and queues it; the records appended in one turn
 * of the event loop are committed together, the head anchor moved once, then the listeners told.
 * durable() says when they are in the log, and rejects, saying why and what to do, when the commit
 * failed; the chain then goes back to what is really in the log and the next commit succeeds.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GENESIS_HASH, type AuditKind, type AuditRecord } from '../../shared/audit';
import { GateError } from '../../shared/errors';
import { AuditStore } from '../../main/audit/auditStore';
import { INDEX_THREAD_NICE } from '../../main/audit/indexState';
import { iterateCalls } from '../../main/audit/explorerQuery';
import { indexPathFor } from '../../main/audit/indexThread';
import { openDatabase } from '../../main/audit/sqlite';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditPaths } from './auditFixture';
import { WAIT_MS } from '../fixtures/processes';

let home: string;
let store: AuditStore;

beforeEach(() => {
  home = makeTempFolder();
  store = new AuditStore(auditPaths(home));
});
afterEach(() => {
  store.close();
  removeTempFolder(home);
});

/** The seqs in the database, read through a connection of its own (what another process, or the disk, holds). */
function seqsOnDisk(): number[] {
  const db = openDatabase(auditPaths(home).path, { readOnly: true });
  try {
    return (db.prepare('SELECT seq FROM audit ORDER BY seq').all() as Array<{ seq: number }>).map((row) => row.seq);
  } finally {
    db.close();
  }
}

function anchoredSeq(): number {
  return Number(readFileSync(auditPaths(home).headPath, 'utf8').split(' ')[0]);
}

/** A call's records, as the executor writes them for an auto-allowed echo. */
function appendCall(callId: string, text: string, kinds: AuditKind[] = ['invoked', 'policy', 'started', 'completed']): AuditRecord[] {
  const payloads: Record<string, unknown> = {
    invoked: { tool: 'echo', source: 'mcp', arguments: { text } },
    policy: { decision: 'allow', rule: 'tier:SAFE→allow', tier: 'SAFE' },
    started: { tool: 'echo', version: '1.0.0' },
    completed: { status: 'completed', output: `said ${text}`, durationMs: 1 },
  };
  return kinds.map((kind) => store.append({ callId, kind, payload: payloads[kind] }));
}

/**
 * A trigger put on the log by another connection, as a fault no test hook could fake better: SQLite
 * refuses the commit that writes a record of `callId`, as it would on a full disk or a lock.
 */
function refuseRecordsOf(callId: string): () => void {
  const db = openDatabase(auditPaths(home).path);
  db.exec(`CREATE TRIGGER refuse_call BEFORE INSERT ON audit WHEN NEW.call_id = '${callId}' BEGIN SELECT RAISE(ABORT, 'disk I/O error (test)'); END`);
  return () => {
    db.exec('DROP TRIGGER refuse_call');
    db.close();
  };
}

describe('group commit', () => {
  it('commits the records of many calls in one burst together, after append returned them chained, then tells the listeners in seq order', async () => {
    const heard: number[] = [];
    store.onAppend((record) => heard.push(record.seq));
    const records = ['a', 'b', 'c'].flatMap((callId) => appendCall(callId, `hello ${callId}`));
    expect(records.map((record) => record.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(records[0]!.prevHash).toBe(GENESIS_HASH);
    for (let i = 1; i < records.length; i++) expect(records[i]!.prevHash).toBe(records[i - 1]!.hash);
    // Queued, not yet written: nobody else sees them, nobody was told, the anchor is where it was.
    expect(seqsOnDisk()).toEqual([]);
    expect(heard).toEqual([]);
    expect(anchoredSeq()).toBe(0);

    await store.durable();
    expect(seqsOnDisk()).toEqual(records.map((record) => record.seq));
    expect(heard).toEqual(records.map((record) => record.seq));
    expect(readFileSync(auditPaths(home).headPath, 'utf8')).toBe(`${'12'.padStart(20, '0')} ${records.at(-1)!.hash}\n`);
    expect(store.verify()).toEqual({ ok: true, records: 12 });
  });

  it('lets every reader see the records appended before it asked, without waiting for the commit', () => {
    appendCall('open', 'still running', ['invoked', 'policy', 'started']);
    expect(store.list({ limit: 10 }).map((record) => record.seq)).toEqual([3, 2, 1]);
    appendCall('done', 'finished');
    expect(store.forCall('done').map((record) => record.kind)).toEqual(['invoked', 'policy', 'started', 'completed']);
    appendCall('late', 'after', ['invoked']);
    expect(store.openCalls().map((call) => call.callId)).toEqual(['open', 'late']);
    appendCall('later', 'after', ['invoked']);
    expect(store.callIndex().row('later')).toMatchObject({ outcome: 'open', seq: 9 });
    appendCall('last', 'after', ['invoked']);
    expect([...store.leafHashes()]).toHaveLength(10);
    appendCall('verified', 'after', ['invoked']);
    expect(store.verify()).toMatchObject({ ok: true, records: 11 });
    expect(seqsOnDisk()).toHaveLength(11);
  });

  it('commits by itself every 4096 records for a writer that never lets the event loop turn, so its queue stays bounded', () => {
    for (let i = 0; i < 4100; i++) store.append({ callId: `bulk-${i}`, kind: 'invoked', payload: { i } });
    expect(seqsOnDisk()).toHaveLength(4096);
    expect(anchoredSeq()).toBe(4096);
  });

  it('commits what is queued when the store closes', () => {
    appendCall('a', 'x');
    store.close();
    expect(seqsOnDisk()).toEqual([1, 2, 3, 4]);
    expect(anchoredSeq()).toBe(4);
  });

  it('closes a call left open by a stopped gate with the records appended before the check', () => {
    appendCall('cut', 'x', ['invoked', 'started']);
    store.close();
    store = new AuditStore(auditPaths(home));
    const interrupted = store.recordInterruptedCalls();
    expect(interrupted).toMatchObject([{ seq: 3, callId: 'cut', kind: 'interrupted' }]);
    expect(store.openCalls()).toEqual([]);
  });

  it('folds each call into the index once per fold, and a reader finds it by its text as soon as it is committed', async () => {
    appendCall('needle-call', 'a haystack with a needle', ['invoked', 'policy', 'started']);
    await store.durable();
    // Every reader goes through callIndex(), which folds what was committed since.
    const index = () => store.callIndex();
    const found = (text: string) => (index().db.prepare('SELECT rowid FROM calls_text WHERE calls_text MATCH ?').all(`"${text}"`) as Array<{ rowid: number }>).map((row) => row.rowid);
    expect(index().row('needle-call')).toMatchObject({ seq: 1, lastSeq: 3, outcome: 'open' });
    expect(found('needle')).toEqual([1]);
    appendCall('needle-call', 'a haystack with a needle', ['completed']);
    await store.durable();
    expect(index().row('needle-call')).toMatchObject({ seq: 1, lastSeq: 4, outcome: 'completed' });
    // The output's text joined the call's: found by either, once.
    expect(found('said a haystack')).toEqual([1]);
    expect(found('needle')).toEqual([1]);
    expect(index().watermark()).toBe(4);
  });
  it('keeps the index on a thread below the gate\'s priority, not at the lowest, the gate\'s own thread left as it was', () => {
    /** Each thread of this process and its nice value (field 19 of its stat, after the name in parentheses); one that ended while listed is left out. */
    const niceOfThreads = () =>
      new Map(
        readdirSync('/proc/self/task').flatMap((tid) => {
          let stat: string;
          try {
            stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
          } catch {
            return [];
          }
          return [[tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])] as const];
        }),
      );
    store.close();
    const before = niceOfThreads();
    store = new AuditStore(auditPaths(home));
    store.callIndexCatchUp();
    const started = [...niceOfThreads()].filter(([tid]) => !before.has(tid));
    // At 19 it was starved beside a few busy programs, and the gate's close waited out its start.
    expect(started.filter(([, nice]) => nice === INDEX_THREAD_NICE)).toHaveLength(1);
    expect(INDEX_THREAD_NICE).toBeGreaterThan(0);
    expect(INDEX_THREAD_NICE).toBeLessThan(19);
    expect(getPriority()).toBe(0);
    expect(niceOfThreads().get(String(process.pid))).toBe(0);
  });

  it('folds committed calls into the index on its own a moment later, so a reader of the file (the CLI) sees them without the gate being asked', async () => {
    // The index thread has opened the index (as a running gate's has, a moment after its start).
    store.callIndexCatchUp();
    appendCall('later', 'folded by the timer');
    await store.durable();
    const reader = new AuditStore({ ...auditPaths(home), readonly: true });
    try {
      await vi.waitFor(() => expect(reader.callIndex().behind()).toBe(0), { timeout: WAIT_MS, interval: 20 });
      expect(reader.callIndex().row('later')).toMatchObject({ outcome: 'completed' });
    } finally {
      reader.close();
    }
  });
});

describe('records nobody waits for', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('are committed by themselves a few milliseconds later, the anchor moved and the listeners told', async () => {
    const heard: number[] = [];
    store.onAppend((record) => heard.push(record.seq));
    appendCall('reader', 'nobody asked for durable()', ['invoked', 'policy', 'started']);
    await vi.waitFor(
      () => {
        expect(seqsOnDisk()).toEqual([1, 2, 3]);
        expect(anchoredSeq()).toBe(3);
        expect(heard).toEqual([1, 2, 3]);
      },
      { timeout: WAIT_MS, interval: 5 },
    );
  });

  it('go with the records appended after them when durable() is asked within the window: a quick call, one commit', async () => {
    // The window's timer is held still: the event loop turning (a tool answering) does not commit.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const commits: number[][] = [];
    let burst: number[] = [];
    store.onAppend((record) => {
      burst.push(record.seq);
      queueMicrotask(() => {
        if (burst.length > 0) commits.push(burst);
        burst = [];
      });
    });
    appendCall('quick', 'answered at once', ['invoked', 'policy', 'started']);
    const watch = store.watchCommit();
    await new Promise((resolve) => setImmediate(resolve));
    expect(seqsOnDisk()).toEqual([]);
    appendCall('quick', 'answered at once', ['completed']);
    await store.durable();
    await new Promise((resolve) => setImmediate(resolve));
    expect(commits).toEqual([[1, 2, 3, 4]]);
    expect(watch.failure).toBeUndefined();
  });

  it('are committed within the window even after a commit took the records its timer was set for, and a closed store leaves no timer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    appendCall('first', 'answered at once', ['invoked']);
    await store.durable({ now: true });
    expect(seqsOnDisk()).toEqual([1]);
    vi.advanceTimersByTime(3);
    appendCall('second', 'nobody asked', ['invoked']);
    expect(seqsOnDisk()).toEqual([1]);
    vi.advanceTimersByTime(2);
    expect(seqsOnDisk()).toEqual([1, 2]);
    // Once that timer has run, the next record alone gets a window of its own.
    vi.advanceTimersByTime(20);
    appendCall('third', 'nobody asked either', ['invoked']);
    vi.advanceTimersByTime(4);
    expect(seqsOnDisk()).toEqual([1, 2]);
    vi.advanceTimersByTime(1);
    expect(seqsOnDisk()).toEqual([1, 2, 3]);
    appendCall('fourth', 'written at close', ['invoked']);
    store.close();
    expect(seqsOnDisk()).toEqual([1, 2, 3, 4]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('are committed before the event loop turns when durable() is asked to commit now (the only call under way)', async () => {
    const heard: number[] = [];
    store.onAppend((record) => heard.push(record.seq));
    appendCall('alone', 'nothing else is coming', ['invoked', 'policy', 'started', 'completed']);
    let settled = false;
    const committed = store.durable({ now: true }).then(() => (settled = true));
    // Not a turn later: already on disk for another reader, the anchor moved, the listeners told.
    expect(seqsOnDisk()).toEqual([1, 2, 3, 4]);
    expect(anchoredSeq()).toBe(4);
    expect(heard).toEqual([1, 2, 3, 4]);
    await committed;
    expect(settled).toBe(true);
    // Without `now` the same records wait for the turn, to share the commit with others.
    appendCall('later', 'shares the turn', ['invoked']);
    const shared = store.durable();
    expect(seqsOnDisk()).toEqual([1, 2, 3, 4]);
    await shared;
    expect(seqsOnDisk()).toEqual([1, 2, 3, 4, 5]);
  });

  it('are watched without waiting: the failure of their commit shows on the watch the moment it fails', async () => {
    const restore = refuseRecordsOf('doomed');
    try {
      appendCall('doomed', 'refused', ['invoked', 'started']);
      const watch = store.watchCommit();
      expect(watch.failure).toBeUndefined();
      // Nobody waits on the watch: the commit fails on its own, a few milliseconds later.
      await vi.waitFor(() => expect(watch.failure).toMatchObject({ code: 'ERUNTIME', message: expect.stringMatching(/^records 1–2 were not written/) }), {
        timeout: WAIT_MS,
        interval: 5,
      });
      expect(seqsOnDisk()).toEqual([]);
    } finally {
      restore();
    }
  });
});

describe('the call index fold', () => {
  it('runs on a thread of its own: records committed while the gate\'s thread never yields are folded all the same', () => {
    store.callIndexCatchUp();
    for (let call = 0; call < 80; call++) appendCall(`call-${call}`, `text ${call}`);
    store.commit();
    const index = openDatabase(indexPathFor(auditPaths(home).path), { readOnly: true });
    const watermark = () => (index.prepare("SELECT value FROM calls_index_state WHERE key = 'watermark'").get() as { value: number } | undefined)?.value ?? 0;
    try {
      // This thread blocks (it never returns to the event loop) while the index thread folds.
      const pause = new Int32Array(new SharedArrayBuffer(4));
      for (let waits = 0; waits < 1000 && watermark() < 320; waits++) Atomics.wait(pause, 0, 0, 10);
      expect(watermark()).toBe(320);
      const row = index.prepare("SELECT outcome FROM calls WHERE call_id = 'call-79'").get() as { outcome: string };
      expect(row.outcome).toBe('completed');
    } finally {
      index.close();
    }
  });
});

describe('the call index fold, against a rebuild', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives the same rows and finds the same calls by text as a rebuild, for calls whose records span commits and folds', () => {
    // Each call's four records go out one per commit, 70 calls interleaved; every seventh call stays
    // open. A reader makes the index fold after some commits; the index thread folds when it will.
    const kinds: AuditKind[] = ['invoked', 'policy', 'started', 'completed'];
    kinds.forEach((kind, step) => {
      for (let call = 0; call < 70; call++) if (kind !== 'completed' || call % 7 !== 0) appendCall(`call-${call}`, `text number ${call}`, [kind]);
      store.commit();
      if (step % 2 === 1) store.callIndex();
    });
    const searches = ['text number 14', 'said text number 3', 'number 6'];
    const read = (of: AuditStore) => ({
      rows: [...iterateCalls(of, {})],
      found: searches.map((text) => [...iterateCalls(of, { text })].map((row) => row.callId).sort()),
    });
    const folded = read(store);
    expect(folded.rows).toHaveLength(70);
    expect(folded.rows.filter((row) => row.outcome === 'open')).toHaveLength(10);
    // Only completed calls have the output's text ("said …").
    const completedThrees = Array.from({ length: 70 }, (_, call) => call).filter((call) => String(call).startsWith('3') && call % 7 !== 0);
    expect(folded.found[1]).toEqual(completedThrees.map((call) => `call-${call}`).sort());
    store.close();

    rmSync(indexPathFor(auditPaths(home).path));
    store = new AuditStore(auditPaths(home));
    expect(store.callIndexCatchUp()).toMatchObject({ kind: 'rebuilt' });
    expect(read(store)).toEqual(folded);
  });
});

describe('a commit that fails', () => {
  it('leaves its records out of the log, rejects their waiters saying why and what to do, and chains the next record from what is there', async () => {
    const kept = appendCall('kept', 'first');
    await store.durable();
    const heard: number[] = [];
    store.onAppend((record) => heard.push(record.seq));

    const restore = refuseRecordsOf('doomed');
    appendCall('innocent', 'same burst');
    appendCall('doomed', 'refused');
    const waiting = store.durable();
    await expect(waiting).rejects.toBeInstanceOf(GateError);
    await expect(waiting).rejects.toMatchObject({
      code: 'ERUNTIME',
      message: expect.stringMatching(/^records 5–12 were not written to \S+audit\.db \(.*disk I\/O error \(test\).*\); they are not in the log\. Make room on its disk or make it writable again/),
    });
    // The whole burst is out (one transaction), nobody heard of it, the anchor still names the last committed record.
    expect(seqsOnDisk()).toEqual([1, 2, 3, 4]);
    expect(heard).toEqual([]);
    expect(readFileSync(auditPaths(home).headPath, 'utf8')).toBe(`${'4'.padStart(20, '0')} ${kept.at(-1)!.hash}\n`);
    // Asked after the failure, with nothing queued: those records are still not in the log.
    await expect(store.durable()).rejects.toMatchObject({ code: 'ERUNTIME' });

    // The gate keeps running: the next record takes the seq after the last one in the log, chained to it.
    restore();
    const [next] = appendCall('after', 'retry', ['invoked']);
    expect(next).toMatchObject({ seq: 5, prevHash: kept.at(-1)!.hash });
    await store.durable();
    await expect(store.durable()).resolves.toBeUndefined();
    expect(seqsOnDisk()).toEqual([1, 2, 3, 4, 5]);
    expect(heard).toEqual([5]);
    expect(anchoredSeq()).toBe(5);
    expect(store.verify()).toMatchObject({ ok: true, records: 5 });
    expect(store.callIndex().row('doomed')).toBeUndefined();
    expect(store.callIndex().row('after')).toMatchObject({ seq: 5 });
  });

  it('rejects waiters only of its own burst: those of the burst before and after are committed', async () => {
    appendCall('early', 'one', ['invoked']);
    const early = store.durable();
    await early;
    const restore = refuseRecordsOf('doomed');
    appendCall('doomed', 'two', ['invoked']);
    const failed = store.durable();
    await expect(failed).rejects.toMatchObject({ code: 'ERUNTIME' });
    restore();
    appendCall('late', 'three', ['invoked']);
    await expect(store.durable()).resolves.toBeUndefined();
    expect(store.list({ limit: 10 }).map((record) => record.callId)).toEqual(['late', 'early']);
  });

  it('fails the same way when a reader commits the queue, and the reader still sees the log as it is', () => {
    appendCall('kept', 'x', ['invoked']);
    store.commit();
    const restore = refuseRecordsOf('doomed');
    try {
      appendCall('doomed', 'y', ['invoked']);
      const waiting = store.durable();
      expect(store.list({ limit: 10 }).map((record) => record.callId)).toEqual(['kept']);
      expect(store.lastSeq()).toBe(1);
      return expect(waiting).rejects.toMatchObject({ code: 'ERUNTIME' });
    } finally {
      restore();
    }
  });
});

describe('durability modes', () => {
  it('keeps the same log whichever mode opens it, and "power" commits and anchors the same records', async () => {
    appendCall('process-mode', 'x');
    store.close();
    store = new AuditStore({ ...auditPaths(home), durability: 'power' });
    const records = appendCall('power-mode', 'y');
    await store.durable();
    expect(seqsOnDisk()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(readFileSync(auditPaths(home).headPath, 'utf8')).toBe(`${'8'.padStart(20, '0')} ${records.at(-1)!.hash}\n`);
    expect(store.verify()).toEqual({ ok: true, records: 8 });
  });
});
