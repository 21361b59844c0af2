import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { AuditKind } from '../../shared/audit';
import { AuditStore } from '../../main/audit/auditStore';
import { openDatabase, type SqliteDatabase } from '../../main/audit/sqlite';
import { WAIT_MS } from '../fixtures/processes';

/** Where a store in `home` keeps its files (the same names the gate uses). */
export function auditPaths(home: string) {
  return { path: join(home, 'audit.db'), headPath: join(home, 'audit.head') };
}

/** Writes `count` records for two calls into a fresh store in `home`, then closes it. */
export function writeRecords(home: string, count: number): void {
  const kinds: AuditKind[] = ['invoked', 'capability', 'policy', 'started', 'completed'];
  const store = new AuditStore(auditPaths(home));
  for (let i = 0; i < count; i++) {
    store.append({ callId: `call-${Math.floor(i / kinds.length)}`, kind: kinds[i % kinds.length]!, payload: { step: i, note: `record ${i + 1}` } });
  }
  store.close();
}

/**
 * Opens the SQLite file behind the gate's back, as someone tampering with it would: the
 * append-only triggers are dropped first, so UPDATE and DELETE go through.
 */
export function tamper(home: string, change: (db: SqliteDatabase) => void): void {
  const db = openDatabase(auditPaths(home).path);
  try {
    db.exec('DROP TRIGGER audit_no_update; DROP TRIGGER audit_no_delete;');
    change(db);
  } finally {
    db.close();
  }
}

const CLI = resolve(__dirname, '../../bin/toolgate.js');

/** Runs the real CLI (the built one, as a user would) with TOOLGATE_HOME pointing at `home`. */
export function toolgate(home: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', TOOLGATE_HOME: home },
    encoding: 'utf8',
    timeout: WAIT_MS,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}
