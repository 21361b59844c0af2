/**
 * The gate's checkpoint writer: a signed checkpoint every N records, every T seconds while records
 * come, and at close; the leaf hashes kept beside them; a gate refuses to write on a log that no
 * longer matches the checkpoints in its folder; a folder that fails never fails the log itself.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditStore } from '../../main/audit/auditStore';
import { parseCheckpoint } from '../../main/audit/checkpoint';
import { loadOrCreateCheckpointKey } from '../../main/audit/checkpointKey';
import { checkpointOrigin, CheckpointWriter } from '../../main/audit/checkpointWriter';
import { openNote } from '../../main/audit/signedNote';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditPaths, tamper } from './auditFixture';
import { waitUntil } from '../fixtures/processes';

let root: string;
let home: string;
let folder: string;

beforeEach(() => {
  root = makeTempFolder();
  home = join(root, 'home');
  folder = join(root, 'checkpoints');
  mkdirSync(home);
  mkdirSync(folder, { mode: 0o700 });
});
afterEach(() => removeTempFolder(root));

function open(options: { everyRecords?: number; intervalMs?: number; onError?: (error: Error) => void } = {}) {
  const store = new AuditStore(auditPaths(home));
  const key = loadOrCreateCheckpointKey(home, checkpointOrigin(store.logId()!));
  const writer = new CheckpointWriter({ dir: folder, audit: store, key, ...options });
  const append = (count: number) => {
    for (let i = 0; i < count; i++) store.append({ callId: `call-${i}`, kind: 'invoked', payload: { i } });
    // The writer hears records as they are committed: here at once, rather than when the event loop turns.
    store.commit();
  };
  const latest = () => parseCheckpoint(openNote(readFileSync(writer.checkpointPath, 'utf8'), key.verifier));
  const close = () => {
    writer.close();
    store.close();
  };
  return { store, writer, append, latest, close };
}

describe('the checkpoint writer', () => {
  it('signs a checkpoint every N records and at close, keeping 32 bytes of leaf hash per record', () => {
    const log = open({ everyRecords: 5 });
    log.append(4);
    expect(log.latest().size).toBe(0);
    log.append(1);
    expect(log.latest().size).toBe(5);
    log.append(7);
    expect(log.latest().size).toBe(10);
    log.close();
    expect(log.latest().size).toBe(12);
    const leaves = readdirSync(folder).find((name) => name.endsWith('.leaves'))!;
    expect(statSync(join(folder, leaves)).size).toBe(12 * 32);
    expect(statSync(log.writer.checkpointPath).mode & 0o777).toBe(0o600);
  });

  it('signs one after the interval when records wait for it', async () => {
    const log = open({ everyRecords: 1000, intervalMs: 50 });
    try {
      log.append(3);
      // Nothing else comes: only the interval's timer signs these three.
      await waitUntil(() => existsSync(log.writer.checkpointPath) && log.latest().size === 3, 'a checkpoint of the three records');
      expect(log.latest().size).toBe(3);
    } finally {
      log.close();
    }
  });

  it('goes on from where the folder left off when the gate starts again', () => {
    open({ everyRecords: 4 }).close();
    let log = open({ everyRecords: 4 });
    log.append(6);
    log.close();
    log = open({ everyRecords: 4 });
    log.append(2);
    log.close();
    expect(log.latest().size).toBe(8);
  });

  it('refuses to write on a log whose signed records were rewritten, or cut, naming the record', () => {
    const log = open();
    log.append(10);
    log.close();
    tamper(home, (db) => db.prepare("UPDATE audit SET payload = '{\"i\":99}' WHERE seq = 4").run());
    expect(() => open()).toThrow(/record 4 is not the record whose hash was kept/);
    // Cut, with the head anchor moved to match, so that only the checkpoints can tell.
    tamper(home, (db) => {
      db.prepare('DELETE FROM audit WHERE seq > 3').run();
      const { hash } = db.prepare('SELECT hash FROM audit WHERE seq = 3').get() as { hash: string };
      writeFileSync(auditPaths(home).headPath, `${String(3).padStart(20, '0')} ${hash}\n`);
    });
    expect(() => open()).toThrow(/the log ends at record 3, but checkpoints in .* cover 10 records/);
  });

  it('tells a failure to write a checkpoint and keeps the log going', () => {
    const errors: Error[] = [];
    const log = open({ everyRecords: 2, onError: (error) => errors.push(error) });
    rmSync(folder, { recursive: true });
    log.append(2);
    expect(errors[0]?.message).toMatch(/ENOENT/);
    expect(log.store.verify()).toMatchObject({ ok: true, records: 2 });
    mkdirSync(folder, { mode: 0o700 });
    // The next record makes three waiting: they are signed, and their leaf hashes kept.
    log.append(1);
    expect(log.latest().size).toBe(3);
    const leaves = join(folder, readdirSync(folder).find((name) => name.endsWith('.leaves'))!);
    expect(statSync(leaves).size).toBe(3 * 32);
    // Leaf hashes cut behind the writer's back are not appended out of place; checkpoints go on.
    writeFileSync(leaves, Buffer.alloc(32));
    log.append(2);
    expect(log.latest().size).toBe(5);
    expect(statSync(leaves).size).toBe(32);
    expect(errors.at(-1)?.message).toContain('holds 32 bytes, not the 96 this gate wrote: it was changed or removed while the gate ran');
    log.close();
  });
});
