import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AuditStore } from '../../main/audit/auditStore';
import { checkpointKeyForFolder } from '../../main/audit/checkpointKeyGuard';
import { prepareCheckpointDir } from '../../main/audit/checkpointFolder';
import { CheckpointWriter } from '../../main/audit/checkpointWriter';
import { recordHash } from '../../main/audit/recordHash';
import { GENESIS_HASH, type AuditKind } from '../../shared/audit';
import { auditPaths, tamper } from './auditFixture';

const KINDS: AuditKind[] = ['invoked', 'policy', 'started', 'completed'];

/** Appends `count` records as a gate with a checkpoint folder does (a checkpoint every `every`); the newest checkpoint's path. */
export function writeCheckpointedLog(places: { root: string; home: string; folder: string }, count: number, every = 10): string {
  const { root, home, folder } = places;
  const store = new AuditStore(auditPaths(home));
  const dir = prepareCheckpointDir(folder, { home, workspace: join(root, 'ws') });
  const writer = new CheckpointWriter({ dir, audit: store, key: checkpointKeyForFolder(dir, store.logId()!, home).key, everyRecords: every });
  for (let i = 0; i < count; i++) {
    store.append({ callId: `call-${Math.floor(i / 4)}`, kind: KINDS[i % 4]!, payload: { tool: 'write_file', arguments: { path: `src/f${i}.ts` }, step: i } });
  }
  writer.close();
  store.close();
  return writer.checkpointPath;
}

/**
 * What an attacker with the database does: edit one record, then recompute every hash from there
 * on as the store does (the append-only triggers dropped) and write the head anchor to match.
 */
export function rewriteRecord(home: string, seq: number, payload: unknown): void {
  tamper(home, (db) => {
    db.prepare('UPDATE audit SET payload = ? WHERE seq = ?').run(JSON.stringify(payload), seq);
    let prev = GENESIS_HASH;
    const rows = db.prepare('SELECT seq, call_id, kind, time, payload FROM audit ORDER BY seq').all() as Array<{ seq: number; call_id: string; kind: AuditKind; time: string; payload: string }>;
    const update = db.prepare('UPDATE audit SET prev_hash = ?, hash = ? WHERE seq = ?');
    for (const row of rows) {
      const hash = recordHash(prev, { seq: row.seq, callId: row.call_id, kind: row.kind, time: row.time, payload: JSON.parse(row.payload) });
      update.run(prev, hash, row.seq);
      prev = hash;
    }
    writeFileSync(auditPaths(home).headPath, `${String(rows.length).padStart(20, '0')} ${prev}\n`);
  });
}
