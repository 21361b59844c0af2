import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { createBLAKE3, type IHasher } from 'hash-wasm';
import { blake3Hex } from '../../shared/hash';

/**
 * BLAKE3 for reading the whole audit log: hash-wasm's WebAssembly BLAKE3 hashes about 7× faster
 * than the pure-JS one the renderer and the append path use, and gives the same bytes (the test
 * compares them). It loads asynchronously once; until then, or where WebAssembly cannot run, the
 * pure-JS hash answers, so a result never depends on which one ran. Main-process code only.
 */
let hasher: IHasher | undefined;
let loading: Promise<void> | undefined;

/** Loads the WebAssembly hash once; a failure to load leaves the pure-JS one in place. */
export function loadFastBlake3(): Promise<void> {
  loading ??= createBLAKE3().then(
    (created) => {
      hasher = created;
    },
    () => undefined,
  );
  return loading;
}

/** Reused for each text's UTF-8 bytes: grown when a longer text comes, never shrunk. */
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * BLAKE3 of a UTF-8 string as 64 lowercase hex digits: the WebAssembly hash once loaded. The text
 * is encoded into a reused buffer and the digest taken as bytes and hex-encoded by Node: hash-wasm's
 * own string encoding and hex digest cost more than the hash of a record itself.
 */
export function fastBlake3Hex(text: string): string {
  if (!hasher) return blake3Hex(text);
  // UTF-8 takes at most 3 bytes per UTF-16 code unit.
  if (text.length * 3 > scratch.length) scratch = Buffer.allocUnsafe(text.length * 3);
  const length = scratch.write(text, 0, 'utf8');
  hasher.init();
  hasher.update(scratch.subarray(0, length));
  const digest = hasher.digest('binary');
  return Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength).toString('hex');
}

/** The expected digest's bytes, decoded from its hex into a reused buffer. */
const expected = Buffer.alloc(32);

/**
 * Whether BLAKE3(prefix ‖ text) is the digest `hex` spells: verify's question for every record. The
 * prefix (a hash in hex) and the text are written into the reused buffer apart, so the two strings
 * are never joined, and the stored hex is decoded and compared as bytes rather than the digest
 * encoded as hex (each join and encoding costs about as much as the hash of a record itself).
 */
export function fastBlake3Matches(prefix: string, text: string, hex: string): boolean {
  if (!hasher) return blake3Hex(prefix + text) === hex;
  if (hex.length !== 64 || expected.write(hex, 0, 'hex') !== 32) return false;
  const needed = prefix.length * 3 + text.length * 3;
  if (needed > scratch.length) scratch = Buffer.allocUnsafe(needed);
  const head = scratch.write(prefix, 0, 'utf8');
  const length = head + scratch.write(text, head, 'utf8');
  hasher.init();
  hasher.update(scratch.subarray(0, length));
  const digest = hasher.digest('binary');
  // Lowercase hex only, as the store writes it: 'hex' decoding would also take uppercase.
  return Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength).equals(expected) && !/[A-F]/.test(hex);
}

/** BLAKE3 of bytes as 64 lowercase hex digits (a file's content): the WebAssembly hash once loaded. */
export function fastBlake3BytesHex(bytes: Uint8Array): string {
  if (!hasher) return bytesToHex(blake3(bytes));
  hasher.init();
  hasher.update(bytes);
  const digest = hasher.digest('binary');
  return Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength).toString('hex');
}

/** A BLAKE3 fed piece by piece (a large file's content), with its own state: the shared hasher is left alone. */
export function blake3Stream(): { update(bytes: Uint8Array): void; hex(): string } {
  const state = blake3.create();
  return {
    update: (bytes) => void state.update(bytes),
    hex: () => bytesToHex(state.digest()),
  };
}
