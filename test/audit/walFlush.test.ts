/**
 * The audit database's write-ahead log is copied into the database file by a worker thread, so no
 * commit on the gate's thread stops for that copy and its fsyncs; should the worker fail, the gate's
 * connection copies it itself again, as SQLite does by default. Either way the log stays short.
 */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditStore } from '../../main/audit/auditStore';
import { builtAssets } from '../../main/state/paths';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditPaths } from './auditFixture';

let home: string;
let store: AuditStore | undefined;

beforeEach(() => {
  home = makeTempFolder();
});
afterEach(() => {
  store?.close();
  store = undefined;
  removeTempFolder(home);
});

const KIB = 1024;

/** Appends `calls` calls of about 2 KiB each, every fourth one waited for (a group commit), a pause after every 500th. */
async function writeCalls(target: AuditStore, calls: number): Promise<void> {
  const note = 'x'.repeat(2 * KIB);
  for (let call = 0; call < calls; call++) {
    target.append({ callId: `call-${call}`, kind: 'invoked', payload: { tool: 'echo', arguments: { note } } });
    if (call % 4 === 3) await target.durable();
    if (call % 500 === 499) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await target.durable();
}

/** Waits until the database file (not its write-ahead log) holds at least `bytes`, or `ms` passed. */
async function databaseFileReaches(bytes: number, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  let size = statSync(auditPaths(home).path).size;
  while (size < bytes && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    size = statSync(auditPaths(home).path).size;
  }
  return size;
}

function autocheckpointPages(target: AuditStore): number {
  return (target.callIndex().db.prepare('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
}

describe('the write-ahead log', () => {
  it('is copied into the database file by the worker while the gate writes, never by one of its commits', async () => {
    const worker = builtAssets().walFlushWorker;
    expect(existsSync(worker), `${worker} is missing: run \`npm run build\` first`).toBe(true);
    store = new AuditStore({ ...auditPaths(home), walFlushWorker: worker });
    expect(autocheckpointPages(store)).toBe(0);
    await writeCalls(store, 2000);
    // About 4 MiB of records: in the database file while the store is still open, so the worker copied them.
    expect(await databaseFileReaches(3 * KIB * KIB, 5000)).toBeGreaterThanOrEqual(3 * KIB * KIB);
    expect(store.verify()).toMatchObject({ ok: true, records: 2000 });
    // Closed, the worker's connection first and the gate's last: the log file is copied and gone when close() returns.
    store.close();
    store = undefined;
    expect(existsSync(`${auditPaths(home).path}-wal`)).toBe(false);
  });

  it('is copied by the gate\'s own connection again when the worker fails, and nothing is lost', async () => {
    const broken = join(home, 'brokenWorker.mjs');
    writeFileSync(broken, "throw new Error('this worker cannot start');\n");
    store = new AuditStore({ ...auditPaths(home), walFlushWorker: broken });
    await writeCalls(store, 1000);
    expect(autocheckpointPages(store)).toBe(1000);
    expect(await databaseFileReaches(KIB * KIB, 5000)).toBeGreaterThanOrEqual(KIB * KIB);
    expect(store.verify()).toMatchObject({ ok: true, records: 1000 });
  });

  it('is left to SQLite as before when no worker is built', async () => {
    store = new AuditStore({ ...auditPaths(home), walFlushWorker: join(home, 'missing.js') });
    expect(autocheckpointPages(store)).toBe(1000);
  });
});
