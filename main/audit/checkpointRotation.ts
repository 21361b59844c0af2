import { newCallId } from './callId';
import { readFileSync } from 'node:fs';
import type { AuditRecord } from '../../shared/audit';
import { GateError } from '../../shared/errors';
import { writePrivateFile } from '../state/stateFolder';
import type { AuditStore } from './auditStore';
import { checkAgainstCheckpoint } from './checkpointCheck';
import { generateCheckpointKey, readCheckpointKey, saveCheckpointKey, type CheckpointKey } from './checkpointKey';
import { KeyHistoryError, keySpans, readKeyHistory, writeKeyEntry } from './checkpointKeyHistory';
import { claimedSize, logCheckpointFiles, signersOf } from './checkpointTrust';
import { checkpointOrigin, CheckpointWriter } from './checkpointWriter';
import { verifierId, verifierKeyText, type NoteVerifier } from './signedNote';

/** What a person asks for with `toolgate audit key rotate`. */
export interface RotationRequest {
  home: string;
  /** The checkpoint folder. */
  dir: string;
  /** user@host of the person. */
  by: string;
  reason: string;
  /** The key that signed the folder's checkpoints, for a folder written before key histories (`--old-key`). */
  oldKey?: NoteVerifier;
}

/** What a rotation did. */
export interface Rotation {
  previous: NoteVerifier;
  /** Whether the old key signed the change too (its private key was still in the state folder). */
  previousSigned: boolean;
  key: CheckpointKey;
  /** The tree size from which the new key signs. */
  fromSize: number;
  record: AuditRecord;
  entryFile: string;
  checkpointFile: string;
  /** The id of a key file that no history entry named, which the new key replaced. */
  replacedStranger: string | undefined;
}

function fail(message: string): never {
  throw new GateError('EPERMISSION', message);
}

/** The old key: the key history's last, or for a folder without one, the key that signed its checkpoints. */
function oldKeyOf(request: RotationRequest, logId: string, signers: string[], stateKey: CheckpointKey | undefined): { verifier: NoteVerifier; index: number; earlier: NoteVerifier[] } {
  let history;
  try {
    history = readKeyHistory(request.dir, logId);
  } catch (error) {
    if (error instanceof KeyHistoryError) fail(`${error.message}; the key is not rotated over a damaged key history: put the entry back from a copy`);
    throw error;
  }
  if (history.length > 0) return { verifier: history.at(-1)!.verifier, index: history.length, earlier: keySpans(history).slice(0, -1).map((span) => span.verifier) };
  if (signers.length === 0) {
    fail(`${request.dir} holds no checkpoints of this log, so there is no key to rotate from: start the gate with --checkpoint-dir ${request.dir}, which records its key there as the first`);
  }
  const old = request.oldKey ?? (stateKey && signers.every((id) => id === verifierId(stateKey.verifier)) ? stateKey.verifier : undefined);
  if (!old) {
    fail(
      `${request.dir} has no key history yet (its checkpoints were written before there was one) and they are signed by ${signers.join(', ')}: ` +
        'pass the verifier key that signed them, --old-key NAME+HASH+KEY (what `toolgate audit key` printed then), so they stay verifiable',
    );
  }
  if (!signers.includes(verifierId(old))) fail(`--old-key ${verifierId(old)} signed none of the checkpoints of this log in ${request.dir}; they are signed by ${signers.join(', ')}`);
  return { verifier: old, index: 0, earlier: [] };
}

/** Checks the log against the largest checkpoint the old key signed: a new key must not vouch for a log the old one does not. */
function checkLogAgainstOldKey(audit: AuditStore, dir: string, logId: string, old: NoteVerifier): void {
  const chain = audit.verify();
  if (!chain.ok) fail(`the audit log does not verify (${chain.reason}), so the key is not rotated: a new key would vouch for it. See \`toolgate audit verify\``);
  const signedByOld = logCheckpointFiles(dir, logId)
    .map((file) => ({ file, note: readFileSync(file, 'utf8') }))
    .filter(({ note }) => signersOf(note).includes(verifierId(old)))
    .sort((a, b) => (claimedSize(b.note) ?? 0) - (claimedSize(a.note) ?? 0));
  const newest = signedByOld[0];
  if (!newest) return;
  const report = checkAgainstCheckpoint(audit, newest.note, newest.file, old);
  if (!report.ok && report.problem !== 'nothing-signed') {
    fail(
      `the audit log does not match the checkpoint the old key ${verifierId(old)} signed (${report.reason}), so the key is not rotated: a new key would vouch for records the old one did not. ` +
        `See \`toolgate audit verify --checkpoint-dir ${dir}\``,
    );
  }
}

/**
 * Brings in a new checkpoint key as a person's act (`toolgate audit key rotate`), with the gate
 * stopped: the log must verify and match what the old key signed; then a new key is always made
 * (a key file no history entry names may be someone else's), a `key-rotated` record goes into the
 * log, the key history's next entry (signed by the new key, and by the old one when its private key
 * is still here) into the folder, and a checkpoint of the log signed by the new key beside it.
 */
export function rotateCheckpointKey(audit: AuditStore, request: RotationRequest): Rotation {
  const logId = audit.logId();
  if (!logId) fail('the audit log has no id (it was written before checkpoints existed): start the gate once to give it one');
  const signers = [...new Set(logCheckpointFiles(request.dir, logId).flatMap((file) => signersOf(readFileSync(file, 'utf8'))))];
  const stateKey = readCheckpointKey(request.home);
  const old = oldKeyOf(request, logId, signers, stateKey);
  checkLogAgainstOldKey(audit, request.dir, logId, old.verifier);
  const oldPrivate = stateKey && verifierId(stateKey.verifier) === verifierId(old.verifier) ? stateKey : undefined;
  const known = new Set([...old.earlier, old.verifier].map(verifierId));
  const replacedStranger = stateKey && !known.has(verifierId(stateKey.verifier)) ? verifierId(stateKey.verifier) : undefined;
  const fromSize = audit.lastSeq();
  // Written to the state folder only once the log and the folder name it: a rotation cut short leaves the old key in place.
  const key = generateCheckpointKey(checkpointOrigin(logId));
  const previousKey = verifierKeyText(old.verifier.name, old.verifier.publicKey);
  const record = audit.append({
    callId: newCallId(),
    kind: 'key-rotated',
    payload: { previousKey, key: key.verifierKey, fromSize, checkpointFolder: request.dir, by: request.by, reason: request.reason, previousKeySigned: oldPrivate !== undefined },
  });
  audit.commit();
  const entryFile = writeKeyEntry(
    writePrivateFile,
    { dir: request.dir, logId, index: old.index },
    { key, previous: previousKey, fromSize, record: { seq: record.seq, hash: record.hash }, by: request.by, reason: request.reason },
    oldPrivate,
  );
  saveCheckpointKey(request.home, key);
  const writer = new CheckpointWriter({ dir: request.dir, audit, key, earlierKeys: [...old.earlier, old.verifier] });
  writer.close();
  return { previous: old.verifier, previousSigned: oldPrivate !== undefined, key, fromSize, record, entryFile, checkpointFile: writer.checkpointPath, replacedStranger };
}
