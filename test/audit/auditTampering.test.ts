import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalize } from '../../shared/canonicalJson';
import { blake3Hex } from '../../shared/hash';
import type { AuditKind } from '../../shared/audit';
import { AuditStore } from '../../main/audit/auditStore';
import { recordHash } from '../../main/audit/recordHash';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditPaths, tamper, toolgate, writeRecords } from './auditFixture';

let home: string;

beforeEach(() => {
  home = makeTempFolder();
  writeRecords(home, 6);
});
afterEach(() => removeTempFolder(home));

function verify() {
  const store = new AuditStore({ ...auditPaths(home), readonly: true });
  try {
    return store.verify();
  } finally {
    store.close();
  }
}

describe('audit verify after tampering', () => {
  it('is intact before anyone touches it (the second call, with one record, is still open)', () => {
    expect(verify()).toMatchObject({ ok: true, records: 6, openCalls: [{ callId: 'call-1', lastSeq: 6, lastKind: 'invoked' }] });
  });

  it('names the row whose payload was edited', () => {
    tamper(home, (db) => db.prepare("UPDATE audit SET payload = ? WHERE seq = 3").run('{"note":"nothing to see","step":2}'));
    expect(verify()).toMatchObject({ ok: false, records: 2, firstBadSeq: 3, reason: expect.stringContaining('changed after it was written') });
  });

  it('names the row whose time or kind was edited', () => {
    tamper(home, (db) => db.prepare("UPDATE audit SET time = '2000-01-01T00:00:00.000Z' WHERE seq = 4").run());
    expect(verify()).toMatchObject({ ok: false, firstBadSeq: 4 });
  });

  it('names a row whose kind was changed to one that does not exist', () => {
    tamper(home, (db) => db.prepare("UPDATE audit SET kind = 'approved-by-magic' WHERE seq = 2").run());
    expect(verify()).toMatchObject({ ok: false, firstBadSeq: 2, reason: expect.stringContaining('unknown kind') });
  });

  it('names a row that is consistent in itself but does not link to the row before it', () => {
    // Its prevHash points elsewhere and its hash is recomputed over that prevHash, so the row's own
    // hash is right and the next row still links to it: only the link to the row before is broken.
    unlinkRow(home, 3);
    expect(verify()).toMatchObject({ ok: false, records: 2, firstBadSeq: 3, reason: 'record 3 does not link to the record before it' });
    const run = toolgate(home, 'audit', 'verify');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('audit log broken at seq 3: record 3 does not link to the record before it');
  });

  it('names the seq of a deleted middle row', () => {
    tamper(home, (db) => db.prepare('DELETE FROM audit WHERE seq = 3').run());
    expect(verify()).toMatchObject({ ok: false, records: 2, firstBadSeq: 3, reason: expect.stringContaining('missing') });
  });

  it('names the first of two rows whose contents were swapped', () => {
    tamper(home, (db) => {
      const columns = 'call_id, kind, time, payload, prev_hash, hash';
      const three = db.prepare(`SELECT ${columns} FROM audit WHERE seq = 3`).get() as Record<string, string>;
      const four = db.prepare(`SELECT ${columns} FROM audit WHERE seq = 4`).get() as Record<string, string>;
      const write = db.prepare('UPDATE audit SET call_id = @call_id, kind = @kind, time = @time, payload = @payload, prev_hash = @prev_hash, hash = @hash WHERE seq = @seq');
      write.run({ ...four, seq: 3 });
      write.run({ ...three, seq: 4 });
    });
    expect(verify()).toMatchObject({ ok: false, records: 2, firstBadSeq: 3 });
  });

  it('names the first missing seq when the last rows were cut off', () => {
    tamper(home, (db) => db.prepare('DELETE FROM audit WHERE seq >= 5').run());
    expect(verify()).toMatchObject({ ok: false, records: 4, firstBadSeq: 5, reason: expect.stringContaining('cut from its end') });
  });

  it('notices a forged tail: an edit with every later hash recomputed no longer matches the head anchor', () => {
    tamper(home, (db) => {
      const rows = db.prepare('SELECT * FROM audit WHERE seq >= 3 ORDER BY seq').all() as Array<Record<string, any>>;
      let prevHash = (db.prepare('SELECT hash FROM audit WHERE seq = 2').get() as { hash: string }).hash;
      for (const row of rows) {
        const payload = row.seq === 3 ? { forged: true } : JSON.parse(row.payload);
        const hash = blake3Hex(prevHash + canonicalize({ seq: row.seq, callId: row.call_id, kind: row.kind, time: row.time, payload }));
        db.prepare('UPDATE audit SET payload = ?, prev_hash = ?, hash = ? WHERE seq = ?').run(canonicalize(payload), prevHash, hash, row.seq);
        prevHash = hash;
      }
    });
    const report = verify();
    expect(report.ok).toBe(false);
    expect(report.reason).toContain('is not the one the gate wrote last');
  });
});

/** Points row `seq`'s prevHash at another hash and recomputes its own hash (and every later one's) over it. */
function unlinkRow(home: string, seq: number): void {
  tamper(home, (db) => {
    const rows = db.prepare('SELECT * FROM audit WHERE seq >= ? ORDER BY seq').all(seq) as Array<{ seq: number; call_id: string; kind: AuditKind; time: string; payload: string }>;
    let prevHash = (db.prepare('SELECT hash FROM audit WHERE seq = 1').get() as { hash: string }).hash;
    for (const row of rows) {
      const hash = recordHash(prevHash, { seq: row.seq, callId: row.call_id, kind: row.kind, time: row.time, payload: JSON.parse(row.payload) });
      db.prepare('UPDATE audit SET prev_hash = ?, hash = ? WHERE seq = ?').run(prevHash, hash, row.seq);
      prevHash = hash;
    }
    // The head anchor moved to the new last hash, as whoever rewrote the rows would move it.
    writeFileSync(auditPaths(home).headPath, `${String(rows.at(-1)!.seq).padStart(20, '0')} ${prevHash}\n`);
  });
}
