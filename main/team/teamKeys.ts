import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalize } from '../../shared/canonicalJson';

/** PKCS #8 wrapping of a raw 32-byte Ed25519 seed (RFC 8410): the seed alone is what a credentials file holds. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** An Ed25519 private key from its 32-byte seed, base64url; throws a plain Error saying what is wrong. */
export function signingKeyFromSeed(seed: string): KeyObject {
  const raw = Buffer.from(seed, 'base64url');
  if (raw.length !== 32) throw new Error(`an Ed25519 signing key is 32 bytes in base64url (43 characters); this one is ${raw.length} bytes`);
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, raw]), format: 'der', type: 'pkcs8' });
}

/** The raw 32-byte public key of an Ed25519 key, base64url: how approvers are listed. */
export function publicKeyText(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return publicKey.export({ format: 'jwk' }).x!;
}

/** An Ed25519 public key from its raw base64url form. */
export function publicKeyFromText(text: string): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: text }, format: 'jwk' });
}

/** A new Ed25519 key pair: the seed for the holder's credentials, the public key for the team's approver list. */
export function newSigningKey(): { seed: string; publicKey: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const der = privateKey.export({ format: 'der', type: 'pkcs8' });
  return { seed: der.subarray(ED25519_PKCS8_PREFIX.length).toString('base64url'), publicKey: publicKeyText(privateKey) };
}

/** Signs the canonical JSON of a value (RFC 8785), so any member re-serialising it checks the same bytes. */
export function signValue(value: unknown, key: KeyObject): string {
  return sign(null, Buffer.from(canonicalize(value)), key).toString('base64url');
}

/** Whether a signature over a value's canonical JSON was made by the key. Never throws. */
export function verifyValue(value: unknown, signature: string, publicKey: string): boolean {
  try {
    return verify(null, Buffer.from(canonicalize(value)), publicKeyFromText(publicKey), Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}
