import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { GateError } from '../../shared/errors';
import { AuditStore } from '../audit/auditStore';
import { checkAgainstCheckpoint, malformedCheckpoint, type CheckpointReport } from '../audit/checkpointCheck';
import { checkpointKeyPath, loadOrCreateCheckpointKey, readCheckpointKey } from '../audit/checkpointKey';
import { inclusionProof, rootOf, verifyInclusion } from '../audit/merkle';
import { parseVerifierKey, SignedNoteError, type NoteVerifier } from '../audit/signedNote';
import { ensureHome } from '../state/stateFolder';
import { statePaths } from '../state/paths';
import { UsageError, flag, type ParsedArgs } from './argv';
import type { Io } from './commands';

/** A checkpoint is a few lines; past this the file is not one (and is not read whole). */
const MAX_CHECKPOINT_BYTES = 64 * 1024;

/** The key a checkpoint is checked against: `--key NAME+HASH+KEY`, else this state folder's own. */
function checkpointVerifier(args: ParsedArgs, home: string): NoteVerifier {
  const given = flag(args, 'key');
  if (given !== undefined) {
    try {
      return parseVerifierKey(given);
    } catch (error) {
      if (error instanceof SignedNoteError) throw new UsageError(`--key: ${error.message}`);
      throw error;
    }
  }
  const own = readCheckpointKey(home);
  if (!own) {
    throw new UsageError(
      `no checkpoint key at ${checkpointKeyPath(home)}: this state folder never signed a checkpoint. Pass the key that signed it: --key NAME+HASH+KEY (from \`toolgate audit key\` where it was written)`,
    );
  }
  return own.verifier;
}

/** The checkpoint file's text, at most MAX_CHECKPOINT_BYTES; a missing or oversized file is a usage error naming it. */
function readCheckpointFile(path: string): string {
  if (!existsSync(path) || !statSync(path).isFile()) throw new UsageError(`--checkpoint ${path}: no such file`);
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(MAX_CHECKPOINT_BYTES + 1);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    if (length > MAX_CHECKPOINT_BYTES) throw new UsageError(`--checkpoint ${path}: the file is over ${MAX_CHECKPOINT_BYTES} bytes, so it is not a checkpoint`);
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Checks the log read-only against the checkpoint `--checkpoint FILE` names. */
export function checkpointReport(args: ParsedArgs, io: Io, file: string): CheckpointReport {
  const path = resolve(file);
  const note = readCheckpointFile(path);
  // A file that is no checkpoint is said to be one, whichever key would have checked it.
  const malformed = malformedCheckpoint(note, path);
  if (malformed) return malformed;
  const verifier = checkpointVerifier(args, io.home);
  const paths = statePaths(io.home);
  const store = new AuditStore({ path: paths.audit, headPath: paths.auditHead, readonly: true });
  try {
    return checkAgainstCheckpoint(store, note, path, verifier);
  } finally {
    store.close();
  }
}

/** Prints a checkpoint report: one line, on stdout when it verified, stderr when not. */
export function printCheckpointReport(report: CheckpointReport, io: Io): void {
  if (report.ok) io.out(`checkpoint verified: ${report.reason}\n`);
  else io.err(`checkpoint check failed (${report.problem}${report.firstBadSeq === undefined ? '' : `, at seq ${report.firstBadSeq}`}): ${report.reason}\n`);
}

/** `toolgate audit key`: the verifier key of this state folder's checkpoints, made now if the gate never made it. */
export function auditKeyCommand(_args: ParsedArgs, io: Io): number {
  ensureHome(io.home);
  io.out(`${loadOrCreateCheckpointKey(io.home).verifierKey}\n`);
  return 0;
}

/** `toolgate audit prove SEQ [--size N] [--json]`: an RFC 6962 inclusion proof of one record. */
export function auditProveCommand(args: ParsedArgs, io: Io): number {
  const [, seqText, ...extra] = args.positionals;
  if (seqText === undefined || extra.length > 0 || !/^[1-9][0-9]{0,15}$/.test(seqText)) {
    throw new UsageError(`prove takes one record number, e.g. toolgate audit prove 42${seqText === undefined ? '' : `, not ${JSON.stringify([seqText, ...extra].join(' '))}`}`);
  }
  const paths = statePaths(io.home);
  if (!existsSync(paths.audit)) throw new GateError('ENOTFOUND', `no audit log at ${paths.audit}: nothing has run with TOOLGATE_HOME=${io.home} yet`);
  const store = new AuditStore({ path: paths.audit, headPath: paths.auditHead, readonly: true });
  let leaves: Buffer[];
  try {
    leaves = [...store.leafHashes()];
  } finally {
    store.close();
  }
  const sizeText = flag(args, 'size');
  const size = sizeText === undefined ? leaves.length : Number(sizeText);
  if (!Number.isSafeInteger(size) || size < 1 || size > leaves.length) throw new UsageError(`--size ${sizeText}: a tree size from 1 to ${leaves.length} (the log's records)`);
  const seq = Number(seqText);
  if (seq > size) throw new UsageError(`record ${seq} is not in a tree of ${size} records`);
  const proof = inclusionProof(leaves, seq - 1, size);
  const root = rootOf(leaves.slice(0, size));
  // Checked before it is printed: a proof that does not verify is never handed out.
  if (!verifyInclusion(seq - 1, size, leaves[seq - 1]!, proof, root)) throw new Error(`the inclusion proof of record ${seq} does not verify`);
  const result = { seq, leafIndex: seq - 1, treeSize: size, leafHash: leaves[seq - 1]!.toString('hex'), rootHash: root.toString('base64'), proof: proof.map((hash) => hash.toString('hex')) };
  if (flag(args, 'json') === 'true') io.out(`${JSON.stringify(result, null, 2)}\n`);
  else {
    io.out(
      [
        `record ${seq} (leaf index ${seq - 1}) in the tree of ${size} records`,
        `leaf hash  ${result.leafHash}   (SHA-256 of 0x00 and the record's canonical JSON)`,
        `root hash  ${result.rootHash}   (base64, as a checkpoint of ${size} records carries it)`,
        `proof      ${proof.length} hashes, leaf to root (RFC 6962 audit path):`,
        ...result.proof.map((hash) => `  ${hash}`),
        '',
      ].join('\n'),
    );
  }
  return 0;
}
