import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { AuditStore } from '../audit/auditStore';
import { checkAgainstCheckpoint, malformedCheckpoint, type CheckpointReport } from '../audit/checkpointCheck';
import { KeyHistoryError, keyEntryFile, keySpans, readKeyHistory, type KeyEntry, type KeySpan } from '../audit/checkpointKeyHistory';
import { keyInForce, rotationRecordProblems } from '../audit/checkpointTrust';
import { parseVerifierKey, SignedNoteError, verifierId } from '../audit/signedNote';
import { statePaths } from '../state/paths';
import { UsageError, flag, type ParsedArgs } from './argv';
import type { Io } from './commands';

/** A checkpoint is a few lines; past this the file is not one (and is not read whole). */
const MAX_CHECKPOINT_BYTES = 64 * 1024;

/** The keys checkpoints are checked against, and in whose words they are trusted. */
export interface TrustedKeys {
  spans: KeySpan[];
  /** "the key history in DIR" or "--key": what the messages name as the source of trust. */
  source: string;
  history: KeyEntry[];
  /** A key history that cannot be trusted, or one that disagrees with the log: every checkpoint fails on it. */
  problem: string | undefined;
}

/** The checkpoint file's text, at most MAX_CHECKPOINT_BYTES; a missing or oversized file is a usage error naming it. */
export function readCheckpointFile(path: string): string {
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

/**
 * The keys to trust for checkpoints in `dir`: `--key`, when given, pins one (it must be in the
 * folder's key history, if there is one, which is then followed); else the folder's key history.
 * Never the state folder's key on its own: whoever can rewrite the log can replace that key too, and
 * a checkpoint it signed would pass. Neither given nor found is a usage error saying what to pass.
 */
export function trustedKeys(args: ParsedArgs, store: AuditStore, dir: string, what: string): TrustedKeys {
  const logId = store.logId();
  let history: KeyEntry[] = [];
  let problem: string | undefined;
  try {
    history = logId ? readKeyHistory(dir, logId) : [];
  } catch (error) {
    if (!(error instanceof KeyHistoryError)) throw error;
    problem = `${error.message}: the key history cannot be trusted, so neither can the checkpoints it vouches for`;
  }
  if (!problem && history.length > 0) problem = rotationRecordProblems(store, history)[0];
  const source = `the key history in ${dir}`;
  const given = flag(args, 'key');
  if (given === undefined) {
    if (history.length === 0 && !problem) {
      throw new UsageError(
        `no key history beside ${what} (${logId ? keyEntryFile(dir, logId, 0) : 'the log has no id'}), so nothing says which key signed it: pass --key NAME+HASH+KEY, ` +
          'the verifier key you kept from `toolgate audit key`. The key in the state folder is not taken on its own word: whoever can rewrite the log can replace it',
      );
    }
    return { spans: keySpans(history), source, history, problem };
  }
  let pinned;
  try {
    pinned = parseVerifierKey(given);
  } catch (error) {
    if (error instanceof SignedNoteError) throw new UsageError(`--key: ${error.message}`);
    throw error;
  }
  if (history.length === 0) return { spans: [{ verifier: pinned, verifierKey: given, from: 0, to: undefined, entry: undefined }], source: '--key', history, problem };
  const spans = keySpans(history);
  const from = spans.findIndex((span) => verifierId(span.verifier) === verifierId(pinned));
  if (from < 0) problem ??= `--key ${verifierId(pinned)} is none of the keys of ${source} (${spans.map((span) => verifierId(span.verifier)).join(', ')})`;
  // Keys before the pinned one are not vouched for by it.
  return { spans: spans.slice(Math.max(from, 0)), source: `${source}, from --key ${verifierId(pinned)} on`, history, problem };
}

/** Checks the log against one checkpoint note under the trusted keys: the key in force for its size, then signature, origin and consistency. */
export function checkNote(store: AuditStore, note: string, path: string, keys: TrustedKeys): CheckpointReport {
  // A file that is no checkpoint is said to be one, whichever key would have checked it.
  const malformed = malformedCheckpoint(note, path);
  if (malformed) return malformed;
  if (keys.problem) return { ok: false, problem: 'key-history', reason: keys.problem };
  const trust = keyInForce(keys.spans, note, path, keys.source);
  if (!trust.ok) return { ok: false, problem: trust.problem, reason: trust.reason };
  const report = checkAgainstCheckpoint(store, note, path, trust.span.verifier);
  return { ...report, trustedKey: trust.trusted };
}

/** Opens the log read-only for a check. */
export function openLogReadOnly(home: string): AuditStore {
  const paths = statePaths(home);
  return new AuditStore({ path: paths.audit, headPath: paths.auditHead, readonly: true });
}

/** Checks the log read-only against the checkpoint `--checkpoint FILE` names. */
export function checkpointReport(args: ParsedArgs, io: Io, file: string): CheckpointReport {
  const path = resolve(file);
  const note = readCheckpointFile(path);
  const malformed = malformedCheckpoint(note, path);
  if (malformed) return malformed;
  const store = openLogReadOnly(io.home);
  try {
    return checkNote(store, note, path, trustedKeys(args, store, dirname(path), path));
  } finally {
    store.close();
  }
}

/** Prints a checkpoint report: one line, on stdout when it verified, stderr when not (`file` names it among others). */
export function printCheckpointReport(report: CheckpointReport, io: Io, file?: string): void {
  const label = file ? `checkpoint ${basename(file)}` : 'checkpoint';
  const trusted = report.trustedKey ? ` (trusted key: ${report.trustedKey})` : '';
  if (report.ok) io.out(`${label} verified: ${report.reason}${trusted}\n`);
  else if (report.problem === 'nothing-signed') io.err(`${label}: ${report.reason}\n`);
  else io.err(`${label} check failed (${report.problem}${report.firstBadSeq === undefined ? '' : `, at seq ${report.firstBadSeq}`}): ${report.reason}\n`);
}

/** The exit code of checkpoint reports: 0 when one verified and none failed, 2 when they sign nothing yet, else 1. */
export function checkpointExitCode(reports: readonly CheckpointReport[]): number {
  if (reports.some((report) => !report.ok && report.problem !== 'nothing-signed')) return 1;
  return reports.some((report) => report.ok) ? 0 : 2;
}
