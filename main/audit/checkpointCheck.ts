import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { AuditStore } from './auditStore';
import { parseCheckpoint, type Checkpoint } from './checkpoint';
import { checkpointFiles, checkpointOrigin } from './checkpointWriter';
import { consistencyProof, MerkleFrontier, rootOf, verifyConsistency } from './merkle';
import { openNote, SignedNoteError, splitNote, type NoteVerifier } from './signedNote';
import { countOf, nounFor } from '../../shared/plural';

const HASH_BYTES = 32;

/** What a checkpoint check found wrong, for scripts (`audit verify --checkpoint --json`). */
export const CheckpointProblemSchema = z.enum([
  /** The file is not a signed checkpoint. */
  'malformed',
  /** It carries no signature by the key it is checked against. */
  'other-key',
  /** It carries that key's name and hash but its signature does not match its text. */
  'bad-signature',
  /** It is a checkpoint of another log (its origin names another log id). */
  'other-log',
  /** The log holds fewer records than the checkpoint signed: its end was cut or an older copy put back. */
  'truncated',
  /** The records the checkpoint signed are no longer those in the log. */
  'rewritten',
  /** It signs a tree of 0 records: it vouches for nothing. */
  'nothing-signed',
  /** A key of the key history signed it, but over a tree size that key was not in force for. */
  'key-not-in-force',
  /** The key history beside it cannot be trusted (an entry is missing, altered or unsigned). */
  'key-history',
]);
export type CheckpointProblem = z.infer<typeof CheckpointProblemSchema>;

/** The outcome of checking the log against one signed checkpoint. */
export const CheckpointReportSchema = z.object({
  /** True when the signature holds and the log extends the signed tree. */
  ok: z.boolean(),
  /** What is wrong (absent when ok). */
  problem: CheckpointProblemSchema.optional(),
  /** What was found, in words. */
  reason: z.string(),
  /** The tree size the checkpoint signed. */
  checkpointSize: z.number().int().nonnegative().optional(),
  /** How many records the log holds. */
  records: z.number().int().nonnegative().optional(),
  /** The first record that is not the one signed (when it can be named). */
  firstBadSeq: z.number().int().positive().optional(),
  /** Hashes in the RFC 9162 consistency proof that was checked (when ok). */
  proofHashes: z.number().int().nonnegative().optional(),
  /** The key it was checked against, and what vouches for that key (a key history entry, or --key). */
  trustedKey: z.string().optional(),
});
export type CheckpointReport = z.infer<typeof CheckpointReportSchema>;

/** The leaf hashes kept beside a checkpoint, if they are there and hash to its signed root. */
function keptLeaves(checkpointFile: string, checkpoint: Checkpoint, logId: string): Buffer | undefined {
  const path = checkpointFiles(dirname(checkpointFile), logId).leaves;
  if (!existsSync(path)) return undefined;
  const bytes = readFileSync(path);
  if (bytes.length < checkpoint.size * HASH_BYTES) return undefined;
  const signed = Array.from({ length: checkpoint.size }, (_, i) => bytes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES));
  // Unsigned on their own: trusted only when they give the root the key signed.
  return rootOf(signed).equals(checkpoint.root) ? bytes : undefined;
}

/** The first index below `count` where the log's leaves differ from the kept ones. */
function firstDifference(leaves: readonly Buffer[], kept: Buffer, count: number): number | undefined {
  for (let i = 0; i < count; i++) {
    if (!leaves[i]!.equals(kept.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES))) return i;
  }
  return undefined;
}

/** The sizes and roots of the signed, numbered checkpoints of this log beside `checkpointFile`, below `size`, smallest first. */
function olderCheckpoints(checkpointFile: string, logId: string, verifier: NoteVerifier, size: number): Checkpoint[] {
  const dir = dirname(checkpointFile);
  const numbered = new RegExp(`^${logId}\\.\\d{12}\\.checkpoint$`);
  const found: Checkpoint[] = [];
  for (const name of readdirSync(dir).filter((entry) => numbered.test(entry))) {
    try {
      const older = parseCheckpoint(openNote(readFileSync(join(dir, name), 'utf8'), verifier));
      if (older.origin === checkpointOrigin(logId) && older.size > 0 && older.size < size) found.push(older);
    } catch {
      // not one this key signed: it tells nothing
    }
  }
  return found.sort((a, b) => a.size - b.size);
}

/**
 * Where the first changed record lies, by the older signed checkpoints: the log's prefix roots are
 * compared with theirs in one pass, and the change lies past the largest one that still matches and
 * at or before the first one that does not (a bisection over signed subtree roots).
 */
function changedBetween(leaves: readonly Buffer[], older: readonly Checkpoint[], size: number, leavesFile: string): string {
  const hint = `Keep the ${leavesFile} file beside the checkpoint to have the first changed record named.`;
  if (older.length === 0) return hint;
  const frontier = new MerkleFrontier();
  let good = 0;
  let bad: number | undefined;
  for (const checkpoint of older) {
    while (frontier.size < checkpoint.size) frontier.push(leaves[frontier.size]!);
    if (frontier.root().equals(checkpoint.root)) good = checkpoint.size;
    else {
      bad = checkpoint.size;
      break;
    }
  }
  return `By the older checkpoints beside it, the first changed record is one of records ${good + 1} to ${bad ?? size}. ${hint}`;
}

/**
 * A checkpoint file that is not one (no signature block, a body without origin, size and root),
 * reported as malformed, naming the fault, before any key is needed to read it; undefined when its
 * form holds (its signature is checked with the key after).
 */
export function malformedCheckpoint(note: string, checkpointFile: string): CheckpointReport | undefined {
  try {
    parseCheckpoint(splitNote(note).text);
    return undefined;
  } catch (error) {
    if (!(error instanceof SignedNoteError) || error.kind !== 'malformed') throw error;
    return { ok: false, problem: 'malformed', reason: `${checkpointFile} ${error.message}` };
  }
}

/**
 * Checks the audit log against a signed checkpoint: its signature by `verifier`, its origin (this
 * log's id), then that the log's first N records hash to the signed root and that the whole log
 * extends it (an RFC 9162 consistency proof from the checkpoint's tree to the log's, built from the
 * log and verified against the signed root). Rewritten, cut or rolled-back history fails even with
 * the chain recomputed and the head anchor rewritten or deleted: only the key can sign a new root.
 */
export function checkAgainstCheckpoint(store: AuditStore, note: string, checkpointFile: string, verifier: NoteVerifier): CheckpointReport {
  let checkpoint: Checkpoint;
  try {
    checkpoint = parseCheckpoint(openNote(note, verifier));
  } catch (error) {
    if (!(error instanceof SignedNoteError) || error.kind === 'bad-key') throw error;
    return { ok: false, problem: error.kind, reason: `${checkpointFile} ${error.message}` };
  }
  const logId = store.logId();
  const origin = logId ? checkpointOrigin(logId) : undefined;
  if (checkpoint.origin !== origin) {
    return {
      ok: false,
      problem: 'other-log',
      checkpointSize: checkpoint.size,
      reason: `${checkpointFile} is a checkpoint of the log ${checkpoint.origin}, but this audit log is ${origin ?? 'one without an id (written before checkpoints existed)'}: it belongs to another state folder, or this log's id was changed`,
    };
  }
  const leaves = [...store.leafHashes()];
  const records = leaves.length;
  const base = { checkpointSize: checkpoint.size, records };
  if (checkpoint.size === 0) {
    return {
      ok: false,
      problem: 'nothing-signed',
      ...base,
      reason: `nothing signed yet: ${checkpointFile} signs a tree of 0 records (written before the log had any), so it vouches for none of the log's ${countOf(records, 'record')}`,
    };
  }
  const kept = keptLeaves(checkpointFile, checkpoint, logId!);
  const differs = kept ? firstDifference(leaves, kept, Math.min(records, checkpoint.size)) : undefined;
  if (differs !== undefined) {
    return {
      ok: false,
      problem: 'rewritten',
      ...base,
      firstBadSeq: differs + 1,
      reason: `record ${differs + 1} is not the record the gate wrote and signed into the checkpoint of ${countOf(checkpoint.size, 'record')}: the log was rewritten from there on (its chain and head anchor were recomputed to hide it)`,
    };
  }
  if (records < checkpoint.size) {
    return {
      ok: false,
      problem: 'truncated',
      ...base,
      firstBadSeq: records + 1,
      reason: `the log holds ${countOf(records, 'record')} but the checkpoint signed ${checkpoint.size}: records from ${records + 1} on were cut, or an older copy of the log was put back`,
    };
  }
  const newRoot = rootOf(leaves);
  const proof = consistencyProof(leaves, checkpoint.size, records);
  if (!verifyConsistency(checkpoint.size, records, proof, checkpoint.root, newRoot)) {
    return {
      ok: false,
      problem: 'rewritten',
      ...base,
      reason: `the log's first ${countOf(checkpoint.size, 'record')} ${nounFor(checkpoint.size, 'does', 'do')} not hash to the root the checkpoint signed: at least one of them was changed. ${changedBetween(
        leaves,
        olderCheckpoints(checkpointFile, logId!, verifier, checkpoint.size),
        checkpoint.size,
        checkpointFiles('', logId!).leaves,
      )}`,
    };
  }
  return {
    ok: true,
    ...base,
    proofHashes: proof.length,
    reason: `records 1 to ${checkpoint.size} are the ones signed (by ${verifier.name}), and the log's ${countOf(records, 'record')} ${nounFor(records, 'extends', 'extend')} them (consistency proof of ${countOf(proof.length, 'hash', { plural: 'hashes' })} verified)`,
  };
}
