/**
 * What `audit verify` and a starting gate conclude about a log someone changed: the chain walk names
 * the first record that was removed, reordered, unlinked, relabelled or edited, and the head anchor
 * shows a cut or rewritten end. Each check is driven on its own here, with every other check passing,
 * so that turning one of them off is noticed (auditTampering.test.ts and auditStartup.test.ts drive
 * the same through the store and the CLI).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GENESIS_HASH } from '../../shared/audit';
import { anchorFinding, missingDatabaseFinding, type LogEnd } from '../../main/audit/anchorCheck';
import { recordsInOrder, walkChain, type StoredRow } from '../../main/audit/chainWalk';
import type { AnchorState } from '../../main/audit/headAnchor';
import { recordHash } from '../../main/audit/recordHash';
import { openDatabase, type SqliteDatabase } from '../../main/audit/sqlite';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditPaths, tamper, writeRecords } from './auditFixture';

let home: string;
let rows: StoredRow[];

beforeEach(() => {
  home = makeTempFolder();
  writeRecords(home, 6);
  tamper(home, (db) => {
    rows = [...recordsInOrder(db)];
  });
});
afterEach(() => removeTempFolder(home));

const FROM_START = { seq: 1, prevHash: GENESIS_HASH };

/** Runs `use` on the log's database, opened directly (its append-only triggers already dropped). */
function withDatabase(use: (db: SqliteDatabase) => void): void {
  const db = openDatabase(auditPaths(home).path);
  try {
    use(db);
  } finally {
    db.close();
  }
}

/** A row with its hash recomputed over its (changed) fields and prevHash: consistent in itself. */
function rehashed(row: StoredRow): StoredRow {
  const hash = recordHash(row.prev_hash, { seq: row.seq, callId: row.call_id, kind: row.kind as never, time: row.time, payload: JSON.parse(row.payload) });
  return { ...row, hash };
}

describe('the chain walk', () => {
  it('passes the log as written, giving its count, last seq and end hashes', () => {
    expect(walkChain(rows, FROM_START)).toEqual({ ok: true, records: 6, lastSeq: 6, firstPrevHash: GENESIS_HASH, lastHash: rows[5]!.hash });
    expect(walkChain([], FROM_START)).toEqual({ ok: true, records: 0, lastSeq: 0, firstPrevHash: undefined, lastHash: undefined });
  });

  it('reads the records in order, from and to any seq', () => {
    withDatabase((db) => {
      expect([...recordsInOrder(db, 3)].map((row) => row.seq)).toEqual([3, 4, 5, 6]);
      expect([...recordsInOrder(db, 2, 4)].map((row) => row.seq)).toEqual([2, 3, 4]);
      expect([...recordsInOrder(db, 4, 4)].map((row) => row.seq)).toEqual([4]);
      expect([...recordsInOrder(db, 7)]).toEqual([]);
    });
  });

  it('walks a log longer than one read slice to its end, and finds a record edited past the first slice', () => {
    // Chained on from the six records written: 5,010 in all, more than one slice of reads.
    let prev = rows[5]!.hash;
    const time = rows[5]!.time;
    // The append-only triggers were dropped when the rows were read (beforeEach).
    withDatabase((db) => {
      const insert = db.prepare('INSERT INTO audit (seq, call_id, kind, time, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)');
      db.exec('BEGIN');
      for (let seq = 7; seq <= 5010; seq++) {
        const payload = { step: seq };
        const hash = recordHash(prev, { seq, callId: 'call-long', kind: 'invoked', time, payload });
        insert.run(seq, 'call-long', 'invoked', time, JSON.stringify(payload), prev, hash);
        prev = hash;
      }
      db.exec('COMMIT');
    });
    withDatabase((db) => {
      expect(walkChain(recordsInOrder(db), FROM_START)).toMatchObject({ ok: true, records: 5010, lastSeq: 5010, lastHash: prev });
      expect([...recordsInOrder(db, 4998, 5003)].map((row) => row.seq)).toEqual([4998, 4999, 5000, 5001, 5002, 5003]);
      db.prepare('UPDATE audit SET payload = ? WHERE seq = 5007').run('{"step":1}');
      expect(walkChain(recordsInOrder(db), FROM_START)).toMatchObject({ ok: false, records: 5006, seq: 5007 });
    });
  });

  it('names a record missing from the middle or the start', () => {
    expect(walkChain([rows[0]!, rows[1]!, rows[3]!], FROM_START)).toMatchObject({ ok: false, records: 2, seq: 3, reason: 'record 3 is missing (the next one is 4)' });
    expect(walkChain(rows.slice(1), FROM_START)).toMatchObject({ ok: false, records: 0, seq: 1 });
  });

  it('names a record out of order', () => {
    expect(walkChain([rows[0]!, rows[1]!, rows[0]!], FROM_START)).toMatchObject({ ok: false, records: 2, seq: 1, reason: 'record 1 is out of order' });
  });

  it('names a record that is consistent in itself but does not link to the one before, even as the first', () => {
    const unlinked = rehashed({ ...rows[3]!, prev_hash: 'f'.repeat(64) });
    expect(walkChain([...rows.slice(0, 3), unlinked], FROM_START)).toMatchObject({ ok: false, records: 3, seq: 4, reason: 'record 4 does not link to the record before it' });
    expect(walkChain([rehashed({ ...rows[0]!, prev_hash: 'f'.repeat(64) })], FROM_START)).toMatchObject({ ok: false, seq: 1, reason: expect.stringContaining('does not link') });
  });

  it('takes the first link as given only for a stretch checked apart, and checks every link after it', () => {
    expect(walkChain(rows.slice(2), { seq: 3, prevHash: undefined })).toMatchObject({ ok: true, records: 4, lastSeq: 6, firstPrevHash: rows[1]!.hash });
    const unlinked = rehashed({ ...rows[4]!, prev_hash: 'f'.repeat(64) });
    expect(walkChain([rows[2]!, rows[3]!, unlinked], { seq: 3, prevHash: undefined })).toMatchObject({ ok: false, seq: 5 });
  });

  it('names a record whose kind is not one the gate writes, even with its hash recomputed', () => {
    expect(walkChain([rows[0]!, rehashed({ ...rows[1]!, kind: 'approved-by-magic' })], FROM_START)).toMatchObject({ ok: false, seq: 2, reason: expect.stringContaining('unknown kind') });
  });

  it('names a record whose payload, time or call was edited, and one whose payload is not JSON', () => {
    for (const edit of [{ payload: '{"step":99}' }, { time: '2000-01-01T00:00:00.000Z' }, { call_id: 'call-9' }]) {
      expect(walkChain([rows[0]!, { ...rows[1]!, ...edit }], FROM_START)).toMatchObject({ ok: false, records: 1, seq: 2, reason: expect.stringContaining('changed after it was written') });
    }
    expect(walkChain([rows[0]!, { ...rows[1]!, payload: '{not json' }], FROM_START)).toMatchObject({ ok: false, seq: 2, reason: expect.stringContaining('not JSON') });
  });

  it('passes a payload stored in another JSON spelling of the same value, which hashes the same', () => {
    const respelled = { ...rows[1]!, payload: JSON.stringify(JSON.parse(rows[1]!.payload), null, 2) };
    expect(walkChain([rows[0]!, respelled, ...rows.slice(2)], FROM_START)).toMatchObject({ ok: true, records: 6 });
  });
});

describe('the head anchor against the end of the log', () => {
  const HEAD = '/state/audit.head';
  /** The log as it is: its last seq and each record's hash. */
  const logOf = (count: number): LogEnd => ({ lastSeq: count, hashAt: (seq) => (seq >= 1 && seq <= count ? rows[seq - 1]!.hash : undefined) });
  const present = (seq: number, hash: string): AnchorState => ({ state: 'present', head: { seq, hash } });

  it('passes an anchor at the end of the log, or behind it on a record the log still holds', () => {
    expect(anchorFinding(present(6, rows[5]!.hash), logOf(6), HEAD)).toBeUndefined();
    expect(anchorFinding(present(4, rows[3]!.hash), logOf(6), HEAD)).toBeUndefined();
    expect(anchorFinding(present(0, GENESIS_HASH), logOf(6), HEAD)).toBeUndefined();
  });

  it('finds records cut from the end: the anchor ahead of the log, naming the first one gone', () => {
    expect(anchorFinding(present(6, rows[5]!.hash), logOf(4), HEAD)).toMatchObject({ problem: 'anchor-ahead', firstBadSeq: 5, reason: expect.stringContaining('records were cut from its end') });
    expect(anchorFinding(present(6, rows[5]!.hash), logOf(0), HEAD)).toMatchObject({ problem: 'anchor-ahead', firstBadSeq: 1, reason: expect.stringContaining('replaced or emptied') });
    // One record past the end is already a cut.
    expect(anchorFinding(present(5, rows[4]!.hash), logOf(4), HEAD)).toMatchObject({ problem: 'anchor-ahead', firstBadSeq: 5 });
  });

  it('finds a rewritten log: the record the anchor names has another hash, at the end or behind it', () => {
    const mismatch = anchorFinding(present(6, rows[4]!.hash), logOf(6), HEAD);
    expect(mismatch).toMatchObject({ problem: 'anchor-mismatch', firstBadSeq: 6 });
    // Both hashes are shown by their first 16 digits, so the person can tell which is which.
    expect(mismatch!.reason).toContain(`gives its hash as ${rows[4]!.hash.slice(0, 16)}…, the log has ${rows[5]!.hash.slice(0, 16)}…;`);
    expect(anchorFinding(present(3, 'f'.repeat(64)), logOf(6), HEAD)).toMatchObject({ problem: 'anchor-mismatch', firstBadSeq: 3 });
  });

  it('refuses a missing anchor beside records, and accepts one beside an empty log', () => {
    expect(anchorFinding({ state: 'absent' }, logOf(6), HEAD)).toMatchObject({ problem: 'anchor-missing', reason: expect.stringContaining('--accept-missing-anchor') });
    expect(anchorFinding({ state: 'absent' }, logOf(0), HEAD)).toBeUndefined();
  });

  it('refuses a damaged anchor, except the empty one older gates left beside an empty log', () => {
    expect(anchorFinding({ state: 'unreadable', why: 'garbage', empty: false }, logOf(6), HEAD)).toMatchObject({ problem: 'anchor-unreadable' });
    expect(anchorFinding({ state: 'unreadable', why: 'garbage', empty: false }, logOf(0), HEAD)).toMatchObject({ problem: 'anchor-unreadable' });
    expect(anchorFinding({ state: 'unreadable', why: 'empty', empty: true }, logOf(6), HEAD)).toMatchObject({ problem: 'anchor-unreadable' });
    expect(anchorFinding({ state: 'unreadable', why: 'empty', empty: true }, logOf(0), HEAD)).toBeUndefined();
  });

  it('finds a deleted database when its anchor says records were written, and nothing when it says none', () => {
    expect(missingDatabaseFinding(present(6, rows[5]!.hash), '/state/audit.db')).toMatchObject({ problem: 'anchor-ahead', firstBadSeq: 1 });
    expect(missingDatabaseFinding(present(0, GENESIS_HASH), '/state/audit.db')).toBeUndefined();
    expect(missingDatabaseFinding({ state: 'absent' }, '/state/audit.db')).toBeUndefined();
  });
});
