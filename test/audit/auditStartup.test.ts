/**
 * What the gate's own writer does when it opens the log: it ends the calls a killed gate left
 * open, and it refuses to write past damage the head anchor shows (writing would move the anchor
 * and erase the evidence).
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditAnchorError } from '../../main/audit/anchorCheck';
import { AuditStore } from '../../main/audit/auditStore';
import { openDatabase } from '../../main/audit/sqlite';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { countSqliteWork } from '../fixtures/workCounters';
import { auditPaths, tamper, writeRecords } from './auditFixture';
import { writeOpenCallLog } from './openCallLog';

let home: string;

beforeEach(() => {
  home = makeTempFolder();
});
afterEach(() => removeTempFolder(home));

function withStore<T>(use: (store: AuditStore) => T, options: { readonly?: boolean; acceptMissingAnchor?: boolean } = {}): T {
  const store = new AuditStore({ ...auditPaths(home), ...options });
  try {
    return use(store);
  } finally {
    store.close();
  }
}

describe('recordInterruptedCalls', () => {
  it('ends each call left open with an interrupted record saying where it stopped and when the gate last wrote', () => {
    withStore((store) => {
      store.append({ callId: 'done', kind: 'invoked', payload: {} });
      store.append({ callId: 'waiting', kind: 'invoked', payload: {} });
      store.append({ callId: 'running', kind: 'invoked', payload: {} });
      store.append({ callId: 'waiting', kind: 'approval-requested', payload: {} });
      store.append({ callId: 'done', kind: 'completed', payload: {} });
      store.append({ callId: 'refused-request', kind: 'rejected', payload: {} });
      store.append({ callId: 'running', kind: 'started', payload: {} });
    });
    const last = withStore((store) => store.list({ limit: 1 })[0]!);
    const written = withStore((store) => store.recordInterruptedCalls());
    expect(written.map((record) => [record.seq, record.callId, record.kind])).toEqual([
      [8, 'waiting', 'interrupted'],
      [9, 'running', 'interrupted'],
    ]);
    expect(written[0]!.payload).toEqual({
      reason: 'the gate stopped before this call ended',
      lastStep: 'approval-requested',
      lastStepAt: withStore((store) => store.forCall('waiting')[1]!.time),
      gateLastWroteAt: last.time,
    });
    expect(withStore((store) => store.verify())).toEqual({ ok: true, records: 9 });
    expect(withStore((store) => store.recordInterruptedCalls())).toEqual([]);
  });

  it('finds the few open calls of a 100,000-record log with one query', () => {
    const count = 100_000;
    writeOpenCallLog(auditPaths(home), count);
    const { result: written, rowsRead } = withStore((store) => countSqliteWork(() => store.recordInterruptedCalls()));
    expect(written.map((record) => record.callId)).toEqual([`call-${count / 4}`]);
    // Grouped in SQLite, only the open call and a few rows of state reach JavaScript; a scan in JS
    // would read all 100,000 (its time is in `npm run bench`, section startup).
    expect(rowsRead).toBeLessThan(10);
  });
});

describe('where the next start looks for open calls', () => {
  const closedThrough = () => {
    const db = openDatabase(auditPaths(home).path, { readOnly: true });
    try {
      return (db.prepare("SELECT value FROM audit_state WHERE key = 'closed_through'").get() as { value: number } | undefined)?.value;
    } finally {
      db.close();
    }
  };

  it('notes at each start that every call up to the end is closed, and the next start finds the calls left open since', () => {
    withStore((store) => {
      store.append({ callId: 'first-run', kind: 'invoked', payload: { tool: 'echo' } });
    });
    expect(withStore((store) => store.recordInterruptedCalls()).map((record) => record.callId)).toEqual(['first-run']);
    expect(closedThrough()).toBe(2);
    withStore((store) => {
      store.append({ callId: 'done', kind: 'invoked', payload: { tool: 'echo' } });
      store.append({ callId: 'left', kind: 'invoked', payload: { tool: 'echo' } });
      store.append({ callId: 'done', kind: 'completed', payload: {} });
    });
    const second = withStore((store) => store.recordInterruptedCalls());
    expect(second.map((record) => [record.seq, record.callId])).toEqual([[6, 'left']]);
    expect(closedThrough()).toBe(6);
    // Nothing was open at this start: the note still moves to the end.
    withStore((store) => store.append({ callId: 'refused', kind: 'rejected', payload: {} }));
    expect(withStore((store) => store.recordInterruptedCalls())).toEqual([]);
    expect(closedThrough()).toBe(7);
    expect(withStore((store) => store.verify())).toEqual({ ok: true, records: 7 });
  });

  it('groups only the records after the note: a record before it is not read again', () => {
    withStore((store) => store.append({ callId: 'before', kind: 'invoked', payload: { tool: 'echo' } }));
    // A note past an open call, as no gate writes one: proof that the start does not read below it.
    withStore((store) => {
      store.callIndex();
      store.append({ callId: 'after', kind: 'invoked', payload: { tool: 'echo' } });
    });
    // Where an older gate kept the note (the call index's state, then inside the audit database) is read too.
    const db = openDatabase(auditPaths(home).path);
    db.exec("CREATE TABLE calls_index_state (key TEXT PRIMARY KEY, value INTEGER NOT NULL); INSERT INTO calls_index_state VALUES ('closed_through', 1)");
    expect(withStore((store) => store.openCalls()).map((call) => call.callId)).toEqual(['after']);
    db.exec("DROP TABLE calls_index_state; CREATE TABLE audit_state (key TEXT PRIMARY KEY, value INTEGER NOT NULL); INSERT INTO audit_state VALUES ('closed_through', 1)");
    expect(withStore((store) => store.openCalls()).map((call) => call.callId)).toEqual(['after']);
    // A note beyond the log's end (a log cut, a database swapped) is not trusted: everything is grouped.
    db.exec("UPDATE audit_state SET value = 99 WHERE key = 'closed_through'");
    db.close();
    expect(withStore((store) => store.openCalls()).map((call) => call.callId)).toEqual(['before', 'after']);
  });
});

describe('the gate refuses to write past damage the anchor shows', () => {
  beforeEach(() => writeRecords(home, 10));

  function refusal(options: { acceptMissingAnchor?: boolean } = {}): AuditAnchorError {
    try {
      withStore(() => undefined, options);
    } catch (error) {
      if (error instanceof AuditAnchorError) return error;
      throw error;
    }
    throw new Error('the store opened for writing');
  }

  it('a missing anchor: refused unless accepted, and nothing is written either way until a record is appended', () => {
    rmSync(auditPaths(home).headPath);
    const error = refusal();
    expect(error.finding.problem).toBe('anchor-missing');
    expect(error.message).toContain('so the gate will not add to it: the head anchor');
    expect(error.message).toContain('toolgate audit verify --accept-missing-anchor');
    expect(existsSync(auditPaths(home).headPath)).toBe(false);
    expect(withStore((store) => store.verify(), { readonly: true })).toMatchObject({ ok: false, records: 10, problem: 'anchor-missing' });
  });

  const startOver = 'To start a new log, move audit.db* and its .head file aside';
  it.each([
    ['a cut tail', () => tamper(home, (db) => db.prepare('DELETE FROM audit WHERE seq > 8').run()), 'anchor-ahead', startOver],
    ['an emptied database', () => tamper(home, (db) => db.prepare('DELETE FROM audit').run()), 'anchor-ahead', startOver],
    ['a garbage anchor', () => writeFileSync(auditPaths(home).headPath, 'x'), 'anchor-unreadable', 'Keep it for inspection (mv '],
    ['an anchor naming another hash', () => writeFileSync(auditPaths(home).headPath, `${'9'.padStart(20, '0')} ${'0'.repeat(64)}\n`), 'anchor-mismatch', startOver],
  ])('%s: refused, even when a missing anchor would be accepted, and the anchor is left as it was', (_name, damage, problem, howToGoOn) => {
    damage();
    const anchorBefore = readFileSync(auditPaths(home).headPath, 'utf8');
    const error = refusal({ acceptMissingAnchor: true });
    expect(error.finding.problem).toBe(problem);
    expect(error.message).toContain(howToGoOn);
    expect(readFileSync(auditPaths(home).headPath, 'utf8')).toBe(anchorBefore);
  });

  it('a deleted database: refused before a new, empty one is created in its place', () => {
    rmSync(auditPaths(home).path);
    expect(refusal().message).toContain('is missing, but the head anchor says the gate wrote 10 records: it was deleted or moved');
    expect(existsSync(auditPaths(home).path)).toBe(false);
  });
});

describe('a head anchor removed while the gate runs', () => {
  it('is written again at its path with the next commit, so neither a deletion nor a replacement hides a later cut', () => {
    const { headPath } = auditPaths(home);
    const store = new AuditStore(auditPaths(home));
    try {
      store.append({ callId: 'c', kind: 'invoked', payload: {} });
      rmSync(headPath);
      store.append({ callId: 'c', kind: 'started', payload: {} });
      store.commit();
      expect(readFileSync(headPath, 'utf8')).toMatch(/^0{19}2 [0-9a-f]{64}\n$/);

      // Replaced by a file of someone else's: the gate writes its own head over it.
      writeFileSync(`${headPath}.forged`, `${'1'.padStart(20, '0')} ${'0'.repeat(64)}\n`);
      renameSync(`${headPath}.forged`, headPath);
      store.append({ callId: 'c', kind: 'completed', payload: {} });
      store.commit();
      expect(readFileSync(headPath, 'utf8')).toMatch(/^0{19}3 [0-9a-f]{64}\n$/);
    } finally {
      store.close();
    }
    tamper(home, (db) => db.prepare('DELETE FROM audit WHERE seq = 3').run());
    expect(withStore((store) => store.verify(), { readonly: true })).toMatchObject({ ok: false, problem: 'anchor-ahead', firstBadSeq: 3 });
  });
});

describe('a database file that is not SQLite', () => {
  it('stops the gate with what is wrong and what to do, leaving the file as it was', () => {
    const garbage = 'not a database, just text long enough to be a header '.repeat(4);
    writeFileSync(auditPaths(home).path, garbage);
    expect(() => withStore(() => undefined)).toThrow(/audit database \S+ cannot be read as SQLite \(.+\): it was damaged or replaced\. Move it aside/);
    expect(readFileSync(auditPaths(home).path, 'utf8')).toBe(garbage);
  });
});
