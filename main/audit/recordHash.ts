import type { AuditKind } from '../../shared/audit';
import { canonicalize } from '../../shared/canonicalJson';
import { blake3Hex } from '../../shared/hash';

/** The fields of a record that its hash covers. */
export interface HashedFields {
  seq: number;
  callId: string;
  kind: AuditKind;
  time: string;
  payload: unknown;
}

/** hash = BLAKE3(prevHash ‖ canonical JSON of the record's fields). */
export function recordHash(prevHash: string, fields: HashedFields): string {
  const { seq, callId, kind, time, payload } = fields;
  return blake3Hex(prevHash + canonicalize({ seq, callId, kind, time, payload }));
}
