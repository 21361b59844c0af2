import { canonicalize } from '../../shared/canonicalJson';
import type { HashedFields } from './recordHash';
import { leafHash } from './merkle';

/**
 * What a Merkle leaf is: the record's canonical bytes, the RFC 8785 JSON of
 * { callId, kind, payload, seq, time } — exactly the text the BLAKE3 chain hashes after the previous
 * hash — hashed as RFC 6962 leaf data (SHA-256 of 0x00 ‖ bytes). The leaf commits to everything the
 * chain hash commits to except the previous hash, which the tree's order replaces: a signed root
 * speaks for the records' contents and order themselves, whatever their chain hashes say.
 */
export function recordLeafHash(fields: HashedFields): Buffer {
  const { seq, callId, kind, time, payload } = fields;
  return leafHash(canonicalize({ seq, callId, kind, time, payload }));
}

/** A record as stored: its payload column is already canonical JSON (the store writes it with canonicalize). */
export interface StoredRecordColumns {
  seq: number;
  call_id: string;
  kind: string;
  time: string;
  payload: string;
}

/**
 * The record's canonical text assembled from the stored columns without parsing the payload (verify
 * reads every record). For a record as the gate wrote it this is the same string canonicalize gives:
 * the keys in RFC 8785 order (callId, kind, payload, seq, time), strings escaped as JSON.stringify
 * does (which is RFC 8785's escaping), a safe-integer seq in decimal, and the payload column as the
 * store wrote it. A payload edited into another form gives another text, and so another hash.
 */
export function storedCanonicalText(row: StoredRecordColumns): string {
  return `{"callId":${JSON.stringify(row.call_id)},"kind":${JSON.stringify(row.kind)},"payload":${row.payload},"seq":${row.seq},"time":${JSON.stringify(row.time)}}`;
}

/** The leaf hash of a stored record (see recordLeafHash): identical for a record as the gate wrote it. */
export function storedLeafHash(row: StoredRecordColumns): Buffer {
  return leafHash(storedCanonicalText(row));
}
