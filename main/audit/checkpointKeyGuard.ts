import { readFileSync } from 'node:fs';
import { GateError } from '../../shared/errors';
import { writePrivateFile } from '../state/stateFolder';
import { checkpointKeyPath, createCheckpointKey, readCheckpointKey, type CheckpointKey } from './checkpointKey';
import { KeyHistoryError, keySpans, readKeyHistory, writeKeyEntry, type KeyEntry } from './checkpointKeyHistory';
import { logCheckpointFiles, signersOf } from './checkpointTrust';
import { checkpointOrigin } from './checkpointWriter';
import { verifierId, type NoteVerifier } from './signedNote';

/** The key a gate signs a folder's checkpoints with, and the earlier keys whose checkpoints it reads back. */
export interface FolderKey {
  key: CheckpointKey;
  earlierKeys: NoteVerifier[];
}

/** The signer ids of every checkpoint of the log in the folder, each with a file it signed. */
function signersInFolder(dir: string, logId: string): Map<string, string> {
  const signers = new Map<string, string>();
  for (const file of logCheckpointFiles(dir, logId)) {
    for (const id of signersOf(readFileSync(file, 'utf8'))) if (!signers.has(id)) signers.set(id, file);
  }
  return signers;
}

function refuse(dir: string, logId: string, found: string, expected: string, key: CheckpointKey | undefined, home: string): never {
  throw new GateError(
    'EPERMISSION',
    `the checkpoint folder ${dir} holds checkpoints of this log (${checkpointOrigin(logId)}) signed by ${found}, and expects them signed by ${expected}, ` +
      `but this gate's checkpoint key (${checkpointKeyPath(home)}) is ${key ? verifierId(key.verifier) : 'gone'}. ` +
      'Signing on with another key would give the log a new identity that nothing vouches for, so the gate does not start. ' +
      `If you replaced or lost the key yourself, record the change as a person: \`toolgate audit key rotate --checkpoint-dir ${dir}\` ` +
      '(it checks the log against the old checkpoints first and writes a signed rotation record into the log and the folder). ' +
      `If you did not, someone else changed the key: check the log with \`toolgate audit verify --checkpoint-dir ${dir}\`.`,
  );
}

function readHistory(dir: string, logId: string): KeyEntry[] {
  try {
    return readKeyHistory(dir, logId);
  } catch (error) {
    if (!(error instanceof KeyHistoryError)) throw error;
    throw new GateError(
      'EPERMISSION',
      `${error.message}. The key history says which keys sign this log's checkpoints, so the gate does not start with it damaged; ` +
        `put the entry back from a copy, and check the log with \`toolgate audit verify --checkpoint-dir ${dir}\``,
    );
  }
}

/**
 * The key to sign a folder's checkpoints with, checked against the folder before anything is
 * signed. A folder whose checkpoints of this log are signed by another key than the state folder's
 * (its key was deleted, replaced or lost) stops the start: only `audit key rotate`, a person's act,
 * brings in a new key. The first start with a folder writes the key history's entry 0 (the key is
 * made then if there is none); a folder from before key histories gets it when its checkpoints are
 * all signed by this key.
 */
export function checkpointKeyForFolder(dir: string, logId: string, home: string): FolderKey {
  const history = readHistory(dir, logId);
  const signers = signersInFolder(dir, logId);
  const key = readCheckpointKey(home);
  if (history.length > 0) {
    const spans = keySpans(history);
    const current = history.at(-1)!;
    const expected = verifierId(current.verifier);
    const known = new Set(spans.map((span) => verifierId(span.verifier)));
    const strangers = [...signers.keys()].filter((id) => !known.has(id));
    if (!key || verifierId(key.verifier) !== expected) refuse(dir, logId, [...signers.keys()].join(', ') || expected, `${expected} (the key history's key ${current.index}, ${current.file})`, key, home);
    if (strangers.length > 0) {
      throw new GateError(
        'EPERMISSION',
        `the checkpoint folder ${dir} holds checkpoints of this log signed by ${strangers.join(', ')} (e.g. ${signers.get(strangers[0]!)}), a key its key history does not hold ` +
          `(it holds ${[...known].join(', ')}): someone signed checkpoints of this log with another key. Check them with \`toolgate audit verify --checkpoint-dir ${dir}\`, ` +
          'and move the files that fail out of the folder (keep them: they are evidence) before starting the gate',
      );
    }
    return { key, earlierKeys: spans.slice(0, -1).map((span) => span.verifier) };
  }
  if (signers.size > 0 && (!key || [...signers.keys()].some((id) => id !== verifierId(key.verifier)))) {
    refuse(dir, logId, [...signers.keys()].join(', '), [...signers.keys()].join(' or '), key, home);
  }
  const signing = key ?? createCheckpointKey(home, checkpointOrigin(logId));
  writeKeyEntry(writePrivateFile, { dir, logId, index: 0 }, { key: signing, previous: undefined, fromSize: 0, record: undefined, by: 'the gate, at its first start with this folder', reason: 'the first key of this log' });
  return { key: signing, earlierKeys: [] };
}
