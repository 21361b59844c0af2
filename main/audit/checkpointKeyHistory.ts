import { closeSync, existsSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { CheckpointKey } from './checkpointKey';
import { checkpointOrigin } from './checkpointWriter';
import { addSignature, openNote, parseVerifierKey, signNote, SignedNoteError, splitNote, verifierId, type NoteVerifier } from './signedNote';
import { countOf } from '../../shared/plural';

/**
 * The key history of a log's checkpoints, kept in the checkpoint folder beside them: one signed note
 * per key, numbered from 0. Entry 0 names the first key and is signed by it; each later entry names
 * the key before it, the tree size from which the new key signs, and the `key-rotated` record that
 * put the change into the log, and is signed by the new key (and by the old one too when it was still
 * at hand). A verifier follows it from the first key on; a checkpoint counts only when a key of the
 * history signed it over a tree size that key was in force for.
 */

/** The note's second line: it tells a key entry from a checkpoint, whose second line is a number. */
const ENTRY_MARK = 'toolgate checkpoint key';
const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;
/** A key entry is a few lines; past this the file is not one. */
const MAX_ENTRY_BYTES = 16 * 1024;

/** The fields of a key entry, one "name value" line each after the origin and the mark. */
const KeyEntryTextSchema = z.strictObject({
  /** Its place in the history, from 0. */
  entry: z.string().regex(DECIMAL),
  /** The key it brings in, NAME+HASH+KEY. */
  key: z.string().min(1),
  /** The key it replaces (NAME+HASH+KEY), or "none" for the log's first key. */
  previous: z.string().min(1),
  /** The smallest tree size the key signs; the key before signs tree sizes up to it. */
  from: z.string().regex(DECIMAL),
  /** "SEQ HASH" of the `key-rotated` record in the log, or "none" for the first key. */
  record: z.string().regex(/^(none|[1-9][0-9]{0,15} [0-9a-f]{64})$/),
  /** When it was written (ISO 8601). */
  time: z.string().min(1),
  /** Who wrote it: the gate for the first key, user@host for a rotation. */
  by: z.string().min(1),
  /** Why, in the person's words. */
  reason: z.string().min(1),
});
type KeyEntryText = z.infer<typeof KeyEntryTextSchema>;

/** One key of the history, read and checked. */
export interface KeyEntry {
  index: number;
  file: string;
  verifier: NoteVerifier;
  verifierKey: string;
  /** The key it replaced, if any (the first entry of a folder written before key histories may name one). */
  previous: { verifier: NoteVerifier; verifierKey: string } | undefined;
  fromSize: number;
  /** The log record of the rotation. */
  record: { seq: number; hash: string } | undefined;
  time: string;
  by: string;
  reason: string;
  /** Whether the key it replaced signed it too (a planned rotation); false when that key was lost. */
  signedByPrevious: boolean;
}

/** A key and the tree sizes it signs (`to` undefined: the key in force now). */
export interface KeySpan {
  verifier: NoteVerifier;
  verifierKey: string;
  from: number;
  to: number | undefined;
  /** The entry that brought it in; undefined for the key before the history began. */
  entry: KeyEntry | undefined;
}

/** A key history entry that cannot be trusted; the message names the file and the fault. */
export class KeyHistoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyHistoryError';
  }
}

/** The file of entry `index` of a log's key history. */
export function keyEntryFile(dir: string, logId: string, index: number): string {
  return join(dir, `${logId}.key.${String(index).padStart(4, '0')}.note`);
}

function readSmall(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(MAX_ENTRY_BYTES + 1);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    if (length > MAX_ENTRY_BYTES) throw new KeyHistoryError(`${path} is over ${MAX_ENTRY_BYTES} bytes, so it is not a key entry`);
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function parseEntryText(text: string, file: string, origin: string): KeyEntryText {
  const fail = (why: string) => new KeyHistoryError(`the key entry ${file} ${why}`);
  const [first, mark, ...rest] = text.slice(0, -1).split('\n');
  if (first !== origin) throw fail(`is of ${JSON.stringify(first)}, not of this log (${origin})`);
  if (mark !== ENTRY_MARK) throw fail(`has no "${ENTRY_MARK}" line, so it is not a key entry`);
  const fields: Record<string, string> = {};
  for (const line of rest) {
    const space = line.indexOf(' ');
    if (space <= 0 || line.slice(0, space) in fields) throw fail(`has a line ${JSON.stringify(line.slice(0, 60))} that is not one "name value" field`);
    fields[line.slice(0, space)] = line.slice(space + 1);
  }
  const parsed = KeyEntryTextSchema.safeParse(fields);
  if (!parsed.success) throw fail(`has a wrong field ${parsed.error.issues[0]!.path.join('.') || ''} (${parsed.error.issues[0]!.message})`);
  return parsed.data;
}

function verifierOf(text: string, file: string): NoteVerifier {
  try {
    return parseVerifierKey(text);
  } catch (error) {
    if (error instanceof SignedNoteError) throw new KeyHistoryError(`the key entry ${file} names a key that is not one: ${error.message}`);
    throw error;
  }
}

/** Whether `verifier` signed `note`: false when it carries no signature of it, an error when its signature is wrong. */
function signedBy(note: string, verifier: NoteVerifier, file: string): boolean {
  try {
    openNote(note, verifier);
    return true;
  } catch (error) {
    if (!(error instanceof SignedNoteError)) throw error;
    if (error.kind === 'other-key') return false;
    throw new KeyHistoryError(`the key entry ${file} ${error.message}`);
  }
}

/** Reads one entry and checks it against the one before it. */
function readEntry(dir: string, logId: string, index: number, before: KeyEntry | undefined): KeyEntry {
  const file = keyEntryFile(dir, logId, index);
  const note = readSmall(file);
  let text: string;
  try {
    text = splitNote(note).text;
  } catch (error) {
    throw new KeyHistoryError(`the key entry ${file} ${(error as Error).message}`);
  }
  const fields = parseEntryText(text, file, checkpointOrigin(logId));
  const fail = (why: string) => new KeyHistoryError(`the key entry ${file} ${why}`);
  if (Number(fields.entry) !== index) throw fail(`says it is entry ${fields.entry}, but its file name makes it entry ${index}`);
  const verifier = verifierOf(fields.key, file);
  if (!signedBy(note, verifier, file)) throw fail(`is not signed by the key it brings in (${verifierId(verifier)}): anyone could have written it`);
  const previous = fields.previous === 'none' ? undefined : { verifier: verifierOf(fields.previous, file), verifierKey: fields.previous };
  if (before) {
    if (fields.previous !== before.verifierKey) throw fail(`says it replaces ${fields.previous.split('+').slice(0, 2).join('+')}, but entry ${index - 1} brought in ${verifierId(before.verifier)}`);
    if (Number(fields.from) < before.fromSize) throw fail(`says its key signs from ${countOf(Number(fields.from), 'record')}, before the key it replaces took over (${before.fromSize})`);
    if (fields.record === 'none') throw fail('names no key-rotated record of the log');
  }
  const [seq, hash] = fields.record === 'none' ? [] : fields.record.split(' ');
  return {
    index,
    file,
    verifier,
    verifierKey: fields.key,
    previous,
    fromSize: Number(fields.from),
    record: seq === undefined ? undefined : { seq: Number(seq), hash: hash! },
    time: fields.time,
    by: fields.by,
    reason: fields.reason,
    signedByPrevious: previous ? signedBy(note, previous.verifier, file) : false,
  };
}

/** The log's key history in `dir`, checked entry by entry; empty when there is none. Throws KeyHistoryError naming the entry at fault. */
export function readKeyHistory(dir: string, logId: string): KeyEntry[] {
  if (!existsSync(dir)) return [];
  const pattern = new RegExp(`^${logId}\\.key\\.(\\d{4})\\.note$`);
  const indexes = readdirSync(dir)
    .map((name) => pattern.exec(name)?.[1])
    .filter((index): index is string => index !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  const history: KeyEntry[] = [];
  for (const [position, index] of indexes.entries()) {
    if (index !== position) throw new KeyHistoryError(`the key history in ${dir} lacks entry ${position} (${keyEntryFile(dir, logId, position)}): it was removed`);
    const entry = readEntry(dir, logId, index, history.at(-1));
    const reused = history.find((earlier) => verifierId(earlier.verifier) === verifierId(entry.verifier));
    if (reused) throw new KeyHistoryError(`the key entry ${entry.file} brings in ${verifierId(entry.verifier)} again, which entry ${reused.index} brought in already`);
    history.push(entry);
  }
  return history;
}

/** Each key of a history with the tree sizes it signs, oldest first (the key before the history, if entry 0 names one). */
export function keySpans(history: readonly KeyEntry[]): KeySpan[] {
  const spans: KeySpan[] = [];
  const first = history[0];
  if (first?.previous) spans.push({ ...first.previous, from: 0, to: first.fromSize, entry: undefined });
  for (const [i, entry] of history.entries()) {
    spans.push({ verifier: entry.verifier, verifierKey: entry.verifierKey, from: entry.fromSize, to: history[i + 1]?.fromSize, entry });
  }
  return spans;
}

/** What a history entry says, on one line. */
export function describeKeyEntry(entry: KeyEntry): string {
  const key = verifierId(entry.verifier);
  if (!entry.previous) return `key ${entry.index}: ${key}, the log's first checkpoint key (${entry.by}, ${entry.time})`;
  const old = verifierId(entry.previous.verifier);
  return (
    `key ${entry.index}: ${key} replaced ${old} from ${countOf(entry.fromSize, 'record')} on (${entry.by}, ${entry.time}: ${entry.reason}); ` +
    (entry.signedByPrevious ? `${old} signed the change too` : `${old} did not sign the change (its private key was not at hand): it rests on this entry and the log's record alone`)
  );
}

/** Writes entry `index` of the history, signed by the new key and, when given, by the key it replaces. */
export function writeKeyEntry(
  write: (path: string, content: string) => void,
  place: { dir: string; logId: string; index: number },
  entry: { key: CheckpointKey; previous: string | undefined; fromSize: number; record: { seq: number; hash: string } | undefined; by: string; reason: string },
  previousKey?: CheckpointKey,
): string {
  const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 300) || 'none given';
  const fields: KeyEntryText = {
    entry: String(place.index),
    key: entry.key.verifierKey,
    previous: entry.previous ?? 'none',
    from: String(entry.fromSize),
    record: entry.record ? `${entry.record.seq} ${entry.record.hash}` : 'none',
    time: new Date().toISOString(),
    by: oneLine(entry.by),
    reason: oneLine(entry.reason),
  };
  const text = [checkpointOrigin(place.logId), ENTRY_MARK, ...Object.entries(fields).map(([name, value]) => `${name} ${value}`), ''].join('\n');
  let note = signNote(text, entry.key.name, entry.key.privateKey);
  if (previousKey) note = addSignature(note, previousKey.name, previousKey.privateKey);
  const file = keyEntryFile(place.dir, place.logId, place.index);
  write(file, note);
  return file;
}
