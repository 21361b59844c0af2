import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { canonicalize } from './canonicalJson';

/** BLAKE3 of a UTF-8 string, as 64 lowercase hex digits. */
export function blake3Hex(text: string): string {
  return bytesToHex(blake3(utf8ToBytes(text)));
}

/** BLAKE3 of the RFC 8785 canonical form of a JSON value. */
export function hashCanonical(value: unknown): string {
  return blake3Hex(canonicalize(value));
}
