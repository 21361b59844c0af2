import { writeFileSync } from 'node:fs';
import { GENESIS_HASH } from '../../shared/audit';
import { canonicalize } from '../../shared/canonicalJson';
import { AuditStore } from '../../main/audit/auditStore';
import { recordHash } from '../../main/audit/recordHash';
import { openDatabase } from '../../main/audit/sqlite';

/**
 * Writes a valid log of `count` records straight into SQLite (fast enough for 100,000): calls of four
 * records each, all closed but the last, whose end never came. Used by the startup test and its bench.
 */
export function writeOpenCallLog(paths: { path: string; headPath: string }, count: number): void {
  new AuditStore(paths).close();
  const db = openDatabase(paths.path);
  const insert = db.prepare('INSERT INTO audit VALUES (?, ?, ?, ?, ?, ?, ?)');
  let prevHash = GENESIS_HASH;
  db.exec('BEGIN');
  for (let seq = 1; seq <= count; seq++) {
    const call = Math.ceil(seq / 4);
    const kind = seq % 4 === 0 && seq !== count ? 'completed' : seq % 4 === 1 ? 'invoked' : 'policy';
    const fields = { seq, callId: `call-${call}`, kind, time: '2026-01-01T00:00:00.000Z', payload: {} } as const;
    const hash = recordHash(prevHash, fields);
    insert.run(seq, fields.callId, kind, fields.time, canonicalize({}), prevHash, hash);
    prevHash = hash;
  }
  db.exec('COMMIT');
  db.close();
  writeFileSync(paths.headPath, `${String(count).padStart(20, '0')} ${prevHash}\n`);
}
