import { chmodSync, existsSync } from 'node:fs';
import { CallIndex } from './callIndex';
import { openDatabase, type SqliteDatabase } from './sqlite';

/** Opens (or creates) the call index's database file for writing; a new one is readable by the person alone. */
export function openIndexDatabase(indexPath: string): SqliteDatabase {
  const created = !existsSync(indexPath);
  const db = openDatabase(indexPath);
  // The index holds the calls' arguments and text: readable by the person alone, as the log is.
  if (created) for (const file of [indexPath, `${indexPath}-wal`, `${indexPath}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
  return db;
}

/** The newest seq the index file at `indexPath` says it holds; 0 when it has none or cannot be read. */
export function indexFileWatermark(indexPath: string): number {
  if (!existsSync(indexPath)) return 0;
  let db: SqliteDatabase | undefined;
  try {
    db = openDatabase(indexPath, { readOnly: true });
    const row = db.prepare("SELECT value FROM calls_index_state WHERE key = 'watermark'").get() as { value: number } | undefined;
    return Number(row?.value ?? 0);
  } catch {
    return 0;
  } finally {
    db?.close();
  }
}

/**
 * Brings the index file up to date with the log on the calling thread, as the index thread does when
 * it opens: for a gate that closes before its index thread was ever needed. A failure is left to the
 * next start, whose index thread catches up.
 */
export function catchUpIndexFile(auditPath: string, indexPath: string): void {
  let auditDb: SqliteDatabase | undefined;
  let indexDb: SqliteDatabase | undefined;
  try {
    auditDb = openDatabase(auditPath, { readOnly: true });
    indexDb = openIndexDatabase(indexPath);
    CallIndex.open(indexDb, auditDb);
  } catch {
    // caught up at the next start
  } finally {
    indexDb?.close();
    auditDb?.close();
  }
}
