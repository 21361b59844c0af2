import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { statePaths } from '../state/paths';
import { writePrivateFile } from '../state/stateFolder';
import { keyHashOf, rawPublicKey, verifierKeyText, type NoteVerifier } from './signedNote';

/** The checkpoint signing key file in the state folder: beside the audit database, never inside it. */
export function checkpointKeyPath(home: string): string {
  return statePaths(home).checkpointKey;
}

/** What the key file holds: the signer's name and its Ed25519 private key (PKCS#8 DER, base64). */
const KeyFileSchema = z.strictObject({
  /** The key name that signature lines carry. */
  name: z.string().regex(/^[^\s+]+$/),
  /** The private key. */
  pkcs8: z.string().min(1),
});

/** The gate's checkpoint key: signs with `privateKey`, verifies with `verifier`, shown as `verifierKey`. */
export interface CheckpointKey {
  name: string;
  privateKey: KeyObject;
  verifier: NoteVerifier;
  /** "NAME+HASH+KEY", the C2SP signed-note verifier key. */
  verifierKey: string;
}

function keyFrom(name: string, privateKey: KeyObject): CheckpointKey {
  const publicKey = rawPublicKey(createPublicKey(privateKey));
  return { name, privateKey, verifier: { name, keyHash: keyHashOf(name, publicKey), publicKey }, verifierKey: verifierKeyText(name, publicKey) };
}

/** The key of a state folder, or undefined when none was made yet; a damaged file is an error naming it. */
export function readCheckpointKey(home: string): CheckpointKey | undefined {
  const path = checkpointKeyPath(home);
  if (!existsSync(path)) return undefined;
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  try {
    const file = KeyFileSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
    const privateKey = createPrivateKey({ key: Buffer.from(file.pkcs8, 'base64'), format: 'der', type: 'pkcs8' });
    if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`it holds a ${privateKey.asymmetricKeyType} key, not Ed25519`);
    return keyFrom(file.name, privateKey);
  } catch (error) {
    throw new GateError(
      'EPERMISSION',
      `the checkpoint key ${path} cannot be read (${(error as Error).message.split('\n')[0]}); checkpoints signed with it can still be checked with \`toolgate audit verify --checkpoint FILE --key VERIFIERKEY\`. Move it aside and record a new key with \`toolgate audit key rotate\`, which keeps the old checkpoints verifiable`,
    );
  }
}

/**
 * A new Ed25519 key, in memory only (saveCheckpointKey writes it), named by the origin of the log
 * it signs (checkpointOrigin): C2SP tlog-checkpoint says a checkpoint's signature SHOULD carry the
 * origin as its key name, which lets a witness or monitor find the key for a checkpoint by its
 * first line. Keys made before carry another name (`toolgate-HOST-RANDOM`); they keep it, since the
 * name is part of the verifier key people and key histories hold.
 */
export function generateCheckpointKey(origin: string): CheckpointKey {
  return keyFrom(origin, generateKeyPairSync('ed25519').privateKey);
}

/** Writes a key as the state folder's (file mode 0600), replacing any key file there. */
export function saveCheckpointKey(home: string, key: CheckpointKey): CheckpointKey {
  writePrivateFile(checkpointKeyPath(home), `${JSON.stringify({ name: key.name, pkcs8: key.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64') })}\n`);
  return key;
}

/** Makes a new key for a state folder's log (named by its origin) and writes it there. */
export function createCheckpointKey(home: string, origin: string): CheckpointKey {
  return saveCheckpointKey(home, generateCheckpointKey(origin));
}

/** The key of a state folder, made at first start for the log of this origin; a readable-by-others file is tightened. */
export function loadOrCreateCheckpointKey(home: string, origin: string): CheckpointKey {
  return readCheckpointKey(home) ?? createCheckpointKey(home, origin);
}
