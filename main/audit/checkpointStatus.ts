import { existsSync, readFileSync } from 'node:fs';
import type { CheckpointStatus } from '../../shared/explorer';
import { parseCheckpoint } from './checkpoint';
import { readCheckpointKey } from './checkpointKey';
import type { CheckpointWriter } from './checkpointWriter';
import { openNote, SignedNoteError } from './signedNote';
import { countOf } from '../../shared/plural';

/** Where the console's checkpoint panel reads from: the state folder (for the key) and the gate's writer, if any. */
export interface CheckpointStatusSource {
  home: string;
  writer: CheckpointWriter | undefined;
}

/**
 * The newest checkpoint as the console shows it. The file in the folder is read back and its
 * signature checked with the gate's key; it counts as verified when its tree size and root are
 * the ones the writer computed from the records as they were appended (the writer checked the
 * whole log against the folder's checkpoints when the gate started), so this costs no pass over
 * the log. A full check of the log as it is on disk is `toolgate audit verify --checkpoint`.
 */
export function checkpointStatus(source: CheckpointStatusSource): CheckpointStatus {
  let verifierKey: string | undefined;
  try {
    verifierKey = readCheckpointKey(source.home)?.verifierKey;
  } catch (error) {
    return { problem: (error as Error).message };
  }
  const { writer } = source;
  if (!writer) {
    return {
      verifierKey,
      problem:
        'no checkpoint folder chosen, so no signed checkpoints are written: start the gate with --checkpoint-dir DIR, ' +
        'or set "checkpointDir" in settings.json, to a folder outside the state folder and the workspace and out of an agent\'s reach (a folder synced off the machine with version history, a USB stick)',
    };
  }
  const { written, error } = writer.latest();
  const folder = writer.folder;
  if (!written) return { verifierKey, folder, problem: error ? `no checkpoint could be written: ${error.message}` : 'no checkpoint written yet' };
  const key = readCheckpointKey(source.home);
  let detail: string;
  let verified = false;
  if (!existsSync(written.file)) detail = `${written.file} is gone from the folder`;
  else if (!key) detail = 'the gate\'s checkpoint key is gone from the state folder';
  else {
    try {
      const checkpoint = parseCheckpoint(openNote(readFileSync(written.file, 'utf8'), key.verifier));
      verified = checkpoint.size > 0 && checkpoint.size >= written.size && (checkpoint.size > written.size || checkpoint.root.equals(written.root));
      detail = checkpoint.size === 0
        ? 'nothing signed yet: the log had no records when it was signed'
        : verified
        ? `signed by ${key.verifier.name}; it commits to records 1 to ${checkpoint.size} as this gate wrote them`
        : `the file holds a tree of ${countOf(checkpoint.size, 'record')} with another root than the ${written.size} this gate signed: it was replaced`;
    } catch (failure) {
      if (!(failure instanceof SignedNoteError)) throw failure;
      detail = `${written.file} ${failure.message}`;
    }
  }
  const problem = error ? `the last checkpoint could not be written: ${error.message}` : undefined;
  return {
    verifierKey,
    folder,
    latest: { file: written.file, size: written.size, rootHash: written.root.toString('base64'), writtenAt: written.writtenAt.toISOString(), verified, detail },
    ...(problem ? { problem } : {}),
  };
}
