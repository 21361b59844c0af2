import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { AuditStore } from './auditStore';
import { parseCheckpoint } from './checkpoint';
import type { KeyEntry, KeySpan } from './checkpointKeyHistory';
import { checkpointFiles } from './checkpointWriter';
import { signerIds, splitNote, verifierId } from './signedNote';
import { countOf } from '../../shared/plural';

/** Which key of the history a checkpoint is checked against, or why none is trusted for it. */
export type KeyTrust =
  | { ok: true; span: KeySpan; trusted: string }
  | { ok: false; problem: 'other-key' | 'key-not-in-force'; reason: string };

/** The checkpoint files of one log in a folder: the numbered ones by tree size, then the latest. */
export function logCheckpointFiles(dir: string, logId: string): string[] {
  if (!existsSync(dir)) return [];
  const numbered = new RegExp(`^${logId}\\.\\d{12}\\.checkpoint$`);
  const files = readdirSync(dir)
    .filter((name) => numbered.test(name))
    .sort()
    .map((name) => join(dir, name));
  const latest = checkpointFiles(dir, logId).checkpoint;
  return existsSync(latest) ? [...files, latest] : files;
}

/** The log ids of checkpoints in a folder, other than `logId`'s. */
export function otherLogsIn(dir: string, logId: string): string[] {
  if (!existsSync(dir)) return [];
  const ids = readdirSync(dir)
    .map((name) => /^([0-9a-f]{32})\.(\d{12}\.)?checkpoint$/.exec(name)?.[1])
    .filter((id): id is string => id !== undefined && id !== logId);
  return [...new Set(ids)];
}

/** The signer ids of a note, or none when it cannot be read (a malformed file is told by its own check). */
export function signersOf(note: string): string[] {
  try {
    return signerIds(note);
  } catch {
    return [];
  }
}

/** The tree size a checkpoint claims, read before its signature is checked (to pick the key in force for it). */
export function claimedSize(note: string): number | undefined {
  try {
    return parseCheckpoint(splitNote(note).text).size;
  } catch {
    return undefined;
  }
}

/**
 * The key of the history that is to have signed this checkpoint: one whose signature it carries and
 * that was in force for its tree size (a retired key signs nothing past the size it was replaced at;
 * a new key signs nothing before the size it took over from). Only the signature line is matched
 * here; the signature itself is checked against the key picked.
 */
export function keyInForce(spans: readonly KeySpan[], note: string, file: string, source: string): KeyTrust {
  const ids = signersOf(note);
  const size = claimedSize(note) ?? 0;
  const held = spans.filter((span) => ids.includes(verifierId(span.verifier)));
  if (held.length === 0) {
    return {
      ok: false,
      problem: 'other-key',
      reason: `${file} is signed by ${ids.join(', ') || 'no one'}, which is none of the keys trusted (${source}: ${spans.map((span) => verifierId(span.verifier)).join(', ')}): this log's gate did not sign it`,
    };
  }
  const span = held.find((candidate) => size >= candidate.from && (candidate.to === undefined || size <= candidate.to));
  if (!span) {
    const shown = held[0]!;
    return {
      ok: false,
      problem: 'key-not-in-force',
      reason:
        `${basename(file)} is signed by ${verifierId(shown.verifier)} over ${countOf(size, 'record')}, but by ${source} that key signs only trees of ${shown.from} to ${shown.to ?? 'any number of'} records: ` +
        'it was signed outside the time the key was in force (a retired key in someone\'s hands, or a checkpoint made up later)',
    };
  }
  const where = span.entry ? `key ${span.entry.index} of ${source}` : `the key before ${source} began, as its entry 0 names it`;
  return { ok: true, span, trusted: `${verifierId(span.verifier)}, ${where}` };
}

/**
 * What is wrong with the log's side of a key history: each rotation entry names the `key-rotated`
 * record that put it into the log (by seq and hash), and that record must be there, naming the same key.
 */
export function rotationRecordProblems(store: AuditStore, history: readonly KeyEntry[]): string[] {
  const problems: string[] = [];
  for (const entry of history) {
    if (!entry.record) continue;
    const [record] = store.list({ limit: 1, beforeSeq: entry.record.seq + 1 });
    const payload = record?.payload as { key?: unknown } | undefined;
    if (!record || record.seq !== entry.record.seq || record.kind !== 'key-rotated' || record.hash !== entry.record.hash || payload?.key !== entry.verifierKey) {
      problems.push(
        `${entry.file} says record ${entry.record.seq} of the log brought in ${verifierId(entry.verifier)}, but the log's record ${entry.record.seq} ` +
          `${record?.seq === entry.record.seq ? `is a ${record.kind} record${record.kind === 'key-rotated' ? ' of another key or with another hash' : ''}` : 'is not there'}: the key history and the log disagree`,
      );
    }
  }
  return problems;
}
