import { AuditKindSchema, type AuditKind } from '../../shared/audit';
import { fastBlake3Matches } from './fastBlake3';
import { recordHash } from './recordHash';
import { storedCanonicalText } from './recordLeaf';
import type { SqliteDatabase } from './sqlite';

/** A record's columns as the audit table stores them. */
export interface StoredRow {
  seq: number;
  call_id: string;
  kind: string;
  time: string;
  payload: string;
  prev_hash: string;
  hash: string;
}

/** The outcome of walking a stretch of the chain: its end, or the first record that breaks it. */
export type ChainWalk =
  | { ok: true; records: number; lastSeq: number; firstPrevHash?: string; lastHash?: string }
  | { ok: false; records: number; seq: number; reason: string };

/** Records read per query: reading a slice with all() is about twice as fast as stepping an iterator. */
const SLICE = 5000;

/**
 * The records with seq from `from` to `to` (all by default) in seq order, read a slice at a time and
 * as arrays where this Node's SQLite can (about twice as fast as rows as objects, which SQLite builds
 * key by key). Each slice is its own read, so a gate appending meanwhile is never held up.
 */
export function* recordsInOrder(db: SqliteDatabase, from = 1, to = Number.MAX_SAFE_INTEGER): Generator<StoredRow> {
  const statement = db.prepare('SELECT seq, call_id, kind, time, payload, prev_hash, hash FROM audit WHERE seq BETWEEN ? AND ? ORDER BY seq LIMIT ?');
  const arrays = typeof statement.setReturnArrays === 'function';
  if (arrays) statement.setReturnArrays(true);
  // Keyset slices: each starts past the last seq read, so gaps in the seqs cost nothing.
  for (let start = from; start <= to; ) {
    const rows = statement.all(start, to, SLICE) as unknown[];
    for (const row of rows) {
      const record = arrays ? storedRow(row as StoredCells) : (row as StoredRow);
      start = record.seq + 1;
      yield record;
    }
    if (rows.length < SLICE) return;
  }
}

type StoredCells = [number, string, string, string, string, string, string];

function storedRow(cells: StoredCells): StoredRow {
  return { seq: cells[0], call_id: cells[1], kind: cells[2], time: cells[3], payload: cells[4], prev_hash: cells[5], hash: cells[6] };
}

/**
 * Walks records in seq order from `start.seq`: seqs without gaps, each prevHash the hash before it
 * (the first one's taken as given when `start.prevHash` is undefined: a stretch checked apart, whose
 * link to the one before is checked by whoever joins them), each hash recomputed.
 */
export function walkChain(rows: Iterable<StoredRow>, start: { seq: number; prevHash: string | undefined }): ChainWalk {
  let expected = start;
  let records = 0;
  let firstPrevHash: string | undefined;
  let lastHash: string | undefined;
  for (const row of rows) {
    firstPrevHash ??= row.prev_hash;
    const problem = checkRow(row, { seq: expected.seq, prevHash: expected.prevHash ?? row.prev_hash });
    if (problem) return { ok: false, records, ...problem };
    records++;
    lastHash = row.hash;
    expected = { seq: row.seq + 1, prevHash: row.hash };
  }
  return { ok: true, records, lastSeq: expected.seq - 1, firstPrevHash, lastHash };
}

/**
 * A walk done elsewhere (in worker threads, while the log kept growing) carried on over the records
 * written since it read the log, up to `lastSeq`, so the log's end is what the anchor is checked against.
 */
export function walkOnFrom(db: SqliteDatabase, chain: ChainWalk, lastSeq: number): ChainWalk {
  if (!chain.ok || chain.lastHash === undefined || chain.lastSeq >= lastSeq) return chain;
  const rest = walkChain(recordsInOrder(db, chain.lastSeq + 1), { seq: chain.lastSeq + 1, prevHash: chain.lastHash });
  return rest.ok ? { ...rest, records: chain.records + rest.records, firstPrevHash: chain.firstPrevHash } : { ...rest, records: chain.records + rest.records };
}

const KINDS = new Set<string>(AuditKindSchema.options);

/**
 * Checks one record against the one before it. The hash is first recomputed over the text the
 * stored columns spell (storedCanonicalText: no JSON parse, WebAssembly BLAKE3 once loaded); only
 * when that differs is the payload parsed and re-canonicalized as recordHash does, so a record the
 * gate wrote costs one hash and no parse. A match means the stored text is the very text the hash
 * was made over: the gate only ever hashes canonical JSON it wrote, so the payload is that JSON
 * (a forger able to hash other text could as well hash valid JSON: the chain cannot tell either, a
 * signed checkpoint can).
 */
function checkRow(row: StoredRow, expected: { seq: number; prevHash: string }): { seq: number; reason: string } | undefined {
  if (row.seq !== expected.seq) {
    return row.seq > expected.seq
      ? { seq: expected.seq, reason: `record ${expected.seq} is missing (the next one is ${row.seq})` }
      : { seq: row.seq, reason: `record ${row.seq} is out of order` };
  }
  if (row.prev_hash !== expected.prevHash) {
    return { seq: row.seq, reason: `record ${row.seq} does not link to the record before it` };
  }
  if (!KINDS.has(row.kind)) return { seq: row.seq, reason: `record ${row.seq} has an unknown kind ${JSON.stringify(row.kind)}` };
  if (fastBlake3Matches(row.prev_hash, storedCanonicalText(row), row.hash)) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    return { seq: row.seq, reason: `record ${row.seq} has a payload that is not JSON` };
  }
  const hash = recordHash(row.prev_hash, { seq: row.seq, callId: row.call_id, kind: row.kind as AuditKind, time: row.time, payload });
  if (hash !== row.hash) return { seq: row.seq, reason: `record ${row.seq} was changed after it was written (its hash does not match)` };
  return undefined;
}
