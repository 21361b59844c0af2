import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync } from 'node:fs';
import type { AuditKind, AuditRecord } from '../../shared/audit';
import { GateError } from '../../shared/errors';
import type { StoredRow } from './chainWalk';
import { openDatabase, type SqliteDatabase } from './sqlite';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS audit (
  seq INTEGER PRIMARY KEY,
  call_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  time TEXT NOT NULL,
  payload TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_call ON audit(call_id);
CREATE TRIGGER IF NOT EXISTS audit_no_update BEFORE UPDATE ON audit
  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_no_delete BEFORE DELETE ON audit
  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TABLE IF NOT EXISTS audit_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TRIGGER IF NOT EXISTS audit_meta_no_update BEFORE UPDATE ON audit_meta
  BEGIN SELECT RAISE(ABORT, 'the log id is written once'); END;
`;

/**
 * What a committed record survives. "process": the gate killed or crashing (the commit is in the
 * OS's page cache, SQLite's synchronous=NORMAL); a power loss or kernel crash may take the last
 * commits. "power": also a power loss (synchronous=FULL: the WAL is fsynced at every commit, and the
 * head anchor after it), at the cost of one fsync per group commit.
 */
export type AuditDurability = 'process' | 'power';

/**
 * Opens the audit database: refused, naming the file, when it cannot be read as SQLite. For writing,
 * in WAL mode (NORMAL syncs the -wal file only at checkpoints, so a commit survives the process but
 * not the machine; FULL, for "power" durability, syncs it at every commit, which group commit makes
 * one fsync per burst), with its tables and log id, readable by the person alone.
 */
export function openAuditDatabase(path: string, options: { readonly: boolean; durability: AuditDurability }): SqliteDatabase {
  const db = openDatabase(path, { readOnly: options.readonly });
  try {
    db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get();
  } catch (error) {
    db.close();
    throw new GateError(
      'EPERMISSION',
      `the audit database ${path} cannot be read as SQLite (${(error as Error).message}): it was damaged or replaced. ` +
        'Move it aside (keep it: it is the evidence) to start a new log, or put back a copy you trust',
    );
  }
  if (options.readonly) return db;
  try {
    db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${options.durability === 'power' ? 'FULL' : 'NORMAL'};`);
    db.exec(SCHEMA);
    // The log's own name, which its signed checkpoints carry: a checkpoint of another log is told apart.
    db.prepare("INSERT OR IGNORE INTO audit_meta (key, value) VALUES ('log-id', ?)").run(randomBytes(16).toString('hex'));
    // The log is the person's record of what their agents did: readable by them alone.
    for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Why a group commit of records `first`–`last` failed: they are not in the log, and what to do. */
export function recordsNotWritten(first: number, last: number, path: string, error: unknown): GateError {
  return new GateError(
    'ERUNTIME',
    `records ${first}–${last} were not written to ${path} (${(error as Error).message}); ` +
      'they are not in the log. Make room on its disk or make it writable again; the next records are written as soon as it is',
  );
}

/** A record as the log's row holds it, its payload parsed. */
export function recordOfRow(row: StoredRow): AuditRecord {
  return {
    seq: row.seq,
    callId: row.call_id,
    kind: row.kind as AuditKind,
    time: row.time,
    payload: JSON.parse(row.payload) as unknown,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}
