import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/**
 * C2SP signed-note (https://c2sp.org/signed-note) with Ed25519 keys: a text ending in a newline, a
 * blank line, then one line per signature, "— NAME BASE64(keyhash[4] ‖ signature[64])". The key
 * hash is the first 4 bytes of SHA-256(NAME ‖ "\n" ‖ 0x01 ‖ public key), 0x01 naming Ed25519.
 */

const ED25519_TYPE = 0x01;
const SIGNATURE_PREFIX = '\u2014 ';
/** Key names: no white space and no '+', which separates the parts of a verifier key. */
const KEY_NAME = /^[^\s+]+$/;

/** A signed note that cannot be read, or whose signature is not the one asked for; `kind` says which. */
export class SignedNoteError extends Error {
  constructor(
    readonly kind: 'malformed' | 'other-key' | 'bad-signature' | 'bad-key',
    message: string,
  ) {
    super(message);
    this.name = 'SignedNoteError';
  }
}

/** An Ed25519 verifier: its name, key hash and raw 32-byte public key. */
export interface NoteVerifier {
  name: string;
  keyHash: Buffer;
  publicKey: Buffer;
}

/** The 4-byte key hash of a named Ed25519 public key. */
export function keyHashOf(name: string, publicKey: Buffer): Buffer {
  return createHash('sha256').update(`${name}\n`).update(Buffer.from([ED25519_TYPE])).update(publicKey).digest().subarray(0, 4);
}

/** The raw 32 bytes of an Ed25519 public key. */
export function rawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url');
}

/** The verifier key text "NAME+HASH+BASE64(0x01 ‖ public key)" (hash as 8 hex digits). */
export function verifierKeyText(name: string, publicKey: Buffer): string {
  return `${name}+${keyHashOf(name, publicKey).toString('hex')}+${Buffer.concat([Buffer.from([ED25519_TYPE]), publicKey]).toString('base64')}`;
}

/** Reads a verifier key text; throws SignedNoteError('bad-key') naming what is wrong with it. */
export function parseVerifierKey(text: string): NoteVerifier {
  const fail = (why: string) => new SignedNoteError('bad-key', `the verifier key ${JSON.stringify(text.slice(0, 80))} ${why}; it reads NAME+HASH+KEY, as \`toolgate audit key\` prints it`);
  // A name holds no '+' and the hash is hex, but base64 may hold '+': the key is everything after the second.
  const match = /^([^+]*)\+([^+]*)\+(.*)$/s.exec(text.trim());
  if (!match) throw fail(`has fewer than 3 parts separated by '+'`);
  const [, name, hashHex, keyBase64] = match as unknown as [string, string, string, string];
  if (!KEY_NAME.test(name)) throw fail('has an empty name or one with white space');
  if (!/^[0-9a-f]{8}$/.test(hashHex)) throw fail('has a key hash that is not 8 hex digits');
  const key = Buffer.from(keyBase64, 'base64');
  if (key.length !== 33 || key[0] !== ED25519_TYPE || key.toString('base64') !== keyBase64) throw fail('holds no Ed25519 public key (0x01 and 32 bytes, base64)');
  const publicKey = key.subarray(1);
  if (!keyHashOf(name, publicKey).equals(Buffer.from(hashHex, 'hex'))) throw fail('has a key hash that does not match its name and key');
  return { name, keyHash: keyHashOf(name, publicKey), publicKey };
}

/** Signs a note text (which must end in a newline) with one Ed25519 key. */
export function signNote(text: string, name: string, privateKey: KeyObject): string {
  if (!text.endsWith('\n')) throw new Error('a note text ends in a newline');
  if (!KEY_NAME.test(name)) throw new Error(`the key name ${JSON.stringify(name)} has white space or '+'`);
  const publicKey = rawPublicKey(createPublicKey(privateKey));
  const signature = sign(null, Buffer.from(text, 'utf8'), privateKey);
  return `${text}\n${SIGNATURE_PREFIX}${name} ${Buffer.concat([keyHashOf(name, publicKey), signature]).toString('base64')}\n`;
}

/** Adds one more Ed25519 signature line to a signed note (a cosignature over the same text). */
export function addSignature(note: string, name: string, privateKey: KeyObject): string {
  const { text } = splitNote(note);
  const signed = signNote(text, name, privateKey);
  return `${note}${signed.slice(text.length + 1)}`;
}

/** The "NAME+HASH" of each signature line of a note, as the errors name signers. */
export function signerIds(note: string): string[] {
  return splitNote(note).signatures.map((signature) => `${signature.name}+${signature.keyHash.toString('hex')}`);
}

/** The "NAME+HASH" a verifier's signatures carry. */
export function verifierId(verifier: NoteVerifier): string {
  return `${verifier.name}+${verifier.keyHash.toString('hex')}`;
}

/** One signature line of a note. */
interface NoteSignature {
  name: string;
  keyHash: Buffer;
  signature: Buffer;
}

/** Splits a signed note into its text and signature lines; throws SignedNoteError('malformed') naming the fault. */
export function splitNote(note: string): { text: string; signatures: NoteSignature[] } {
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw new SignedNoteError('malformed', 'it has no blank line between the text and the signatures');
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2).split('\n');
  if (lines.pop() !== '') throw new SignedNoteError('malformed', 'its last signature line does not end in a newline');
  if (lines.length === 0) throw new SignedNoteError('malformed', 'it has no signature lines');
  const signatures = lines.map((line, i) => {
    const match = /^\u2014 ([^\s+]+) ([A-Za-z0-9+/]+={0,2})$/.exec(line);
    const bytes = match ? Buffer.from(match[2]!, 'base64') : undefined;
    if (!match || !bytes || bytes.length < 5) {
      throw new SignedNoteError('malformed', `signature line ${i + 1} (${JSON.stringify(line.slice(0, 60))}) is not "— NAME BASE64"`);
    }
    return { name: match[1]!, keyHash: bytes.subarray(0, 4), signature: bytes.subarray(4) };
  });
  return { text, signatures };
}

/**
 * Checks a signed note against one verifier and returns its text. Throws SignedNoteError: malformed
 * (naming the fault), other-key (naming the signers found), or bad-signature (the text was changed).
 */
export function openNote(note: string, verifier: NoteVerifier): string {
  const { text, signatures } = splitNote(note);
  const mine = signatures.find((candidate) => candidate.name === verifier.name && candidate.keyHash.equals(verifier.keyHash));
  if (!mine) {
    const found = signatures.map((candidate) => `${candidate.name}+${candidate.keyHash.toString('hex')}`).join(', ');
    throw new SignedNoteError('other-key', `it is signed by ${found}, not by ${verifierId(verifier)}`);
  }
  const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: verifier.publicKey.toString('base64url') }, format: 'jwk' });
  if (mine.signature.length !== 64 || !verify(null, Buffer.from(text, 'utf8'), publicKey, mine.signature)) {
    throw new SignedNoteError('bad-signature', `its signature by ${verifier.name} does not match its text: the note was changed after it was signed`);
  }
  return text;
}
