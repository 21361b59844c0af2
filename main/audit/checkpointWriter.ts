import { appendFileSync, closeSync, existsSync, ftruncateSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { GateError } from '../../shared/errors';
import { writePrivateFile } from '../state/stateFolder';
import type { AuditStore } from './auditStore';
import { formatCheckpoint, parseCheckpoint } from './checkpoint';
import type { CheckpointKey } from './checkpointKey';
import { leafHash, MerkleFrontier } from './merkle';
import { openNote, signerIds, signNote, SignedNoteError, verifierId, type NoteVerifier } from './signedNote';
import { countOf, nounFor } from '../../shared/plural';

/** Records between two checkpoints, unless the interval comes first. */
export const CHECKPOINT_EVERY_RECORDS = 1000;
/** Longest time a written record waits for its checkpoint. */
export const CHECKPOINT_INTERVAL_MS = 60_000;

const HASH_BYTES = 32;

/** The origin line of a log's checkpoints. */
export function checkpointOrigin(logId: string): string {
  return `toolgate/${logId}`;
}

/**
 * The files a log's checkpoints are kept in: the latest signed checkpoint, each one ever written
 * (numbered by its tree size, so an older one can be checked too), and every record's leaf hash.
 */
export function checkpointFiles(dir: string, logId: string) {
  return {
    checkpoint: join(dir, `${logId}.checkpoint`),
    numbered: (size: number) => join(dir, `${logId}.${String(size).padStart(12, '0')}.checkpoint`),
    leaves: join(dir, `${logId}.leaves`),
  };
}

/** The newest checkpoint a writer signed, for the console. */
export interface WrittenCheckpoint {
  file: string;
  size: number;
  root: Buffer;
  writtenAt: Date;
}

/** How a checkpoint writer is set up. */
export interface CheckpointWriterOptions {
  /** The folder outside the state folder and the workspace. */
  dir: string;
  audit: AuditStore;
  key: CheckpointKey;
  /** Keys that signed this log's checkpoints before `key` (by the folder's key history): the latest one may be theirs. */
  earlierKeys?: readonly NoteVerifier[];
  everyRecords?: number;
  intervalMs?: number;
  /** Where a failure to write a checkpoint is told (the gate goes on; the log itself is intact). */
  onError?: (error: Error) => void;
  /** Told each signed checkpoint note once written, with the verifier key it is checked by (team mode publishes it). */
  onWritten?: (note: string, verifierKey: string) => void;
}

/**
 * Keeps signed checkpoints of the audit log in a folder of the person's choosing: every N records,
 * every T seconds when records were written, and at close. Beside the checkpoint it appends each
 * record's leaf hash, so that `audit verify --checkpoint` can name the first record that differs.
 * The tree is kept as its frontier, so an append costs O(log n).
 */
export class CheckpointWriter {
  private readonly frontier = new MerkleFrontier();
  /** Leaf hashes not yet appended to the leaves file. */
  private pending: Buffer[] = [];
  /** How many leaf hashes the leaves file holds, as this writer knows it. */
  private leavesKept = 0;
  /** Set when the leaves file was changed behind the writer's back: it is left alone from then on. */
  private leavesAbandoned = false;
  /** Records appended since the last signed checkpoint. */
  private unsigned = 0;
  private readonly origin: string;
  private readonly files: ReturnType<typeof checkpointFiles>;
  private readonly unsubscribe: () => void;
  private readonly timer: NodeJS.Timeout;
  private readonly everyRecords: number;
  private written: WrittenCheckpoint | undefined;
  private lastError: Error | undefined;
  private closed = false;

  constructor(private readonly options: CheckpointWriterOptions) {
    const logId = options.audit.logId();
    if (!logId) throw new Error('the audit log has no id (it was opened read-only)');
    this.origin = checkpointOrigin(logId);
    this.files = checkpointFiles(options.dir, logId);
    this.everyRecords = options.everyRecords ?? CHECKPOINT_EVERY_RECORDS;
    this.catchUp();
    this.unsubscribe = options.audit.onAppend((_record, canonicalText) => this.add(canonicalText));
    this.timer = setInterval(() => this.flush(), options.intervalMs ?? CHECKPOINT_INTERVAL_MS);
    this.timer.unref();
    this.write();
  }

  /** The latest checkpoint file. */
  get checkpointPath(): string {
    return this.files.checkpoint;
  }

  /** The folder checkpoints go to. */
  get folder(): string {
    return this.options.dir;
  }

  /** The newest checkpoint this writer signed, and the last failure to write one (cleared by a success). */
  latest(): { written: WrittenCheckpoint | undefined; error: Error | undefined } {
    return { written: this.written, error: this.lastError };
  }

  /**
   * Reads the log once into the frontier and compares it with the leaves and the checkpoint already
   * in the folder: a log that no longer matches them was rewritten or cut, and writing on would
   * bury that, so the gate does not start.
   */
  private catchUp(): void {
    const kept = this.readLeaves();
    this.leavesKept = kept.count;
    const signed = this.readSignedCheckpoint();
    let signedRootSeen = signed === undefined || signed.size === 0;
    for (const leaf of this.options.audit.leafHashes()) {
      const index = this.frontier.size;
      if (index < kept.count && !leaf.equals(kept.bytes.subarray(index * HASH_BYTES, (index + 1) * HASH_BYTES))) {
        this.refuse(`record ${index + 1} is not the record whose hash was kept in ${this.files.leaves}: the log was rewritten from there on`);
      }
      this.frontier.push(leaf);
      if (index >= kept.count) this.pending.push(leaf);
      if (index >= (signed?.size ?? 0)) this.unsigned++;
      if (signed && this.frontier.size === signed.size) {
        if (!this.frontier.root().equals(signed.root)) this.refuse(`the first ${countOf(signed.size, 'record')} ${nounFor(signed.size, 'does', 'do')} not hash to the root signed in ${this.files.checkpoint}: they were rewritten`);
        signedRootSeen = true;
      }
    }
    const end = Math.max(kept.count, signed?.size ?? 0);
    if (this.frontier.size < end || !signedRootSeen) {
      this.refuse(`the log ends at record ${this.frontier.size}, but checkpoints in ${this.options.dir} cover ${countOf(end, 'record')}: records were cut from its end or an older copy was put back`);
    }
  }

  private refuse(reason: string): never {
    throw new GateError(
      'EPERMISSION',
      `the audit log does not match its checkpoints, so the gate will not add to it: ${reason}. ` +
        `See \`toolgate audit verify --checkpoint ${this.files.checkpoint}\`; to start a new log, move the audit database and its .head file aside (keep them: they are the evidence).`,
    );
  }

  /** The leaf hashes kept so far; a partial hash at the end (a crash while appending) is cut off. */
  private readLeaves(): { bytes: Buffer; count: number } {
    if (!existsSync(this.files.leaves)) return { bytes: Buffer.alloc(0), count: 0 };
    const bytes = readFileSync(this.files.leaves);
    const count = Math.floor(bytes.length / HASH_BYTES);
    if (bytes.length % HASH_BYTES !== 0) {
      const fd = openSync(this.files.leaves, 'r+');
      try {
        ftruncateSync(fd, count * HASH_BYTES);
      } finally {
        closeSync(fd);
      }
    }
    return { bytes, count };
  }

  private readSignedCheckpoint() {
    if (!existsSync(this.files.checkpoint)) return undefined;
    try {
      const note = readFileSync(this.files.checkpoint, 'utf8');
      // The key history's earlier keys count only when this key did not sign it: a rotation leaves the latest to the old key until the new one signs.
      const signers = signerIds(note);
      const verifier = [this.options.key.verifier, ...(this.options.earlierKeys ?? [])].find((candidate) => signers.includes(verifierId(candidate))) ?? this.options.key.verifier;
      const checkpoint = parseCheckpoint(openNote(note, verifier));
      if (checkpoint.origin !== this.origin) this.refuse(`${this.files.checkpoint} is of ${checkpoint.origin}, not of this log (${this.origin})`);
      return checkpoint;
    } catch (error) {
      if (error instanceof SignedNoteError) this.refuse(`the checkpoint ${this.files.checkpoint} cannot be trusted: ${error.message}`);
      throw error;
    }
  }

  /** Adds one appended record by its canonical text (one SHA-256 and O(log n) node hashes; no re-read). */
  private add(canonicalText: string): void {
    if (this.closed) return;
    const leaf = leafHash(canonicalText);
    this.frontier.push(leaf);
    if (!this.leavesAbandoned) this.pending.push(leaf);
    this.unsigned++;
    if (this.unsigned >= this.everyRecords) this.flush();
  }

  /** Writes a checkpoint if records came since the last one; a failure is told, never thrown into the log's writer. */
  private flush(): void {
    if (this.unsigned === 0) return;
    try {
      this.write();
    } catch (error) {
      this.report(error as Error);
    }
  }

  private report(error: Error): void {
    this.lastError = error;
    (this.options.onError ?? ((e) => console.error(`toolgate: could not write the audit checkpoint: ${e.message}`)))(error);
  }

  /**
   * Appends the pending leaf hashes, if the file still holds exactly the ones this writer put there.
   * If it was cut, replaced or removed while the gate ran, appending would shift every later hash
   * onto the wrong record; it is left as it is instead (verify then names no record, only that the
   * signed records changed) and the person is told.
   */
  private keepLeaves(): void {
    if (this.pending.length === 0 || this.leavesAbandoned) return;
    const size = existsSync(this.files.leaves) ? statSync(this.files.leaves).size : 0;
    if (size !== this.leavesKept * HASH_BYTES) {
      this.leavesAbandoned = true;
      this.pending = [];
      this.report(
        new Error(
          `${this.files.leaves} holds ${size} bytes, not the ${this.leavesKept * HASH_BYTES} this gate wrote: it was changed or removed while the gate ran. ` +
            'Checkpoints are still signed, but a check against them can no longer name the first changed record; restart the gate to write the leaf hashes again',
        ),
      );
      return;
    }
    appendFileSync(this.files.leaves, Buffer.concat(this.pending), { mode: 0o600 });
    this.leavesKept += this.pending.length;
    this.pending = [];
  }

  /** The leaves first, then the checkpoint that covers them (atomically replaced), so a checkpoint never outruns its leaves. */
  private write(): void {
    this.keepLeaves();
    const root = this.frontier.root();
    const size = this.frontier.size;
    const note = signNote(formatCheckpoint({ origin: this.origin, size, root }), this.options.key.name, this.options.key.privateKey);
    // Each written to a temporary file and renamed into place: a reader never sees half of one.
    writePrivateFile(this.files.numbered(size), note);
    writePrivateFile(this.files.checkpoint, note);
    this.written = { file: this.files.checkpoint, size, root, writtenAt: new Date() };
    this.options.onWritten?.(note, this.options.key.verifierKey);
    this.unsigned = 0;
    if (!this.leavesAbandoned) this.lastError = undefined;
  }

  /** Writes the last checkpoint and stops. Idempotent. */
  close(): void {
    if (this.closed) return;
    // Records still queued for the group commit are heard now, so the last checkpoint covers them.
    this.options.audit.commit();
    this.closed = true;
    clearInterval(this.timer);
    this.unsubscribe();
    this.flush();
  }
}
