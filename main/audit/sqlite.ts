import type * as NodeSqlite from 'node:sqlite';

/** The warning Node 22 and 23 print once when node:sqlite is first loaded (it needs no flag since 22.13). */
const SQLITE_EXPERIMENTAL = /^SQLite is an experimental feature/;

let loaded: typeof NodeSqlite | undefined;

/**
 * Node's built-in SQLite (no native addon, so the same store runs in the CLI, `serve` and the
 * Electron main process whatever its ABI). Loaded on first use rather than imported, so that on
 * Node versions that still mark it experimental its one ExperimentalWarning can be left out of
 * the CLI's output; every other warning, then and later, reaches the process as usual.
 */
export function nodeSqlite(): typeof NodeSqlite {
  if (loaded) return loaded;
  const emitWarning = process.emitWarning;
  process.emitWarning = function filtered(this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const message = typeof warning === 'string' ? warning : warning.message;
    if (SQLITE_EXPERIMENTAL.test(message)) return;
    return (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    loaded = process.getBuiltinModule('node:sqlite') as typeof NodeSqlite | undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
  if (!loaded) {
    throw new Error(`this Node (${process.version}) has no built-in node:sqlite, which the audit log needs: use Node 22.16 or later, or 24`);
  }
  return loaded;
}

/** A SQLite connection to the audit database. */
export type SqliteDatabase = NodeSqlite.DatabaseSync;

/** Opens a database file; `readOnly` also requires that it exists. Waits up to 5 s on a lock, as the gate's writer may hold one. */
export function openDatabase(path: string, options: { readOnly?: boolean } = {}): SqliteDatabase {
  return new (nodeSqlite().DatabaseSync)(path, { readOnly: options.readOnly ?? false, timeout: 5000 });
}
