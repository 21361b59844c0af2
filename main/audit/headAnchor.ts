import { closeSync, existsSync, fdatasyncSync, fstatSync, fsyncSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { GateError } from '../../shared/errors';

/** The last record the gate wrote, kept outside the database so that cutting the log's tail shows. */
export interface Head {
  seq: number;
  hash: string;
}

/** What the anchor file holds: nothing (absent), something that is not an anchor (unreadable), or a head. */
export type AnchorState = { state: 'absent' } | { state: 'unreadable'; why: string; empty: boolean } | { state: 'present'; head: Head };

const WIDTH = 20;
/** One anchor line: the seq padded to WIDTH digits, a space, the hash, a newline. */
const LINE_LENGTH = WIDTH + 1 + 64 + 1;
const ANCHOR_LINE = new RegExp(`^(\\d{${WIDTH}}) ([0-9a-f]{64})\\n$`);

function anchorLine(head: Head): string {
  return `${String(head.seq).padStart(WIDTH, '0')} ${head.hash}\n`;
}

/** Reads the head anchor; never more than one line's worth, so a huge file cannot stall verify. */
export function readAnchor(path: string): AnchorState {
  if (!existsSync(path)) return { state: 'absent' };
  let text: string;
  try {
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(LINE_LENGTH + 1);
      text = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString('latin1');
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    return { state: 'unreadable', why: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, empty: false };
  }
  const match = ANCHOR_LINE.exec(text);
  if (!match) {
    const shown = text.length === 0 ? 'it is empty' : `it holds ${JSON.stringify(text.slice(0, 40))}${text.length > 40 ? '…' : ''}`;
    return { state: 'unreadable', why: `${shown}, not a seq and a hash`, empty: text.length === 0 };
  }
  return { state: 'present', head: { seq: Number(match[1]), hash: match[2]! } };
}

/**
 * Keeps the head anchor file open and overwrites it in place (fixed width) after each commit.
 * A new file is written at once with the log's current head, so an anchor file is never empty:
 * an empty one was damaged.
 *
 * With `sync` (the "power" durability) each write is fsynced, after the commit it names was: an
 * anchor that reached the disk ahead of its records would, after a power loss, read as a cut log.
 */
export class HeadWriter {
  private fd: number | undefined;
  /** The open file's identity, taken when it was opened: compared with the path's at each write. */
  private opened: { ino: number; dev: number; size: number } | undefined;
  private readonly sync: boolean;

  constructor(
    private readonly path: string,
    current: Head,
    options: { sync?: boolean } = {},
  ) {
    this.sync = options.sync ?? false;
    const created = !existsSync(path);
    this.fd = openSync(path, created ? 'w+' : 'r+', 0o600);
    this.opened = fstatSync(this.fd);
    if (created && this.sync) syncFolder(path);
    // Earlier gates left an empty file until their first record: it gets the head now.
    if (created || this.opened.size === 0) this.write(current);
  }

  /**
   * Records the newest seq and hash. If the file was deleted or replaced while the gate ran, it is
   * written anew at its path: writing on into the old, unlinked file would leave the path without
   * the anchor, or with someone else's.
   */
  write(head: Head): void {
    if (this.fd === undefined) return;
    if (!this.stillAtPath()) this.reopen();
    writeSync(this.fd, anchorLine(head), 0);
    if (this.sync) fdatasyncSync(this.fd);
  }

  /** Opens the file at the path again; if that fails (a folder put there), the old file is kept, and verify names the damage. */
  private reopen(): void {
    let fd: number;
    try {
      fd = openSync(this.path, 'w+', 0o600);
    } catch {
      return;
    }
    closeSync(this.fd!);
    this.fd = fd;
    this.opened = fstatSync(fd);
    // A file created anew must also be in its folder's entry to survive a power loss.
    if (this.sync) syncFolder(this.path);
  }

  private stillAtPath(): boolean {
    try {
      const atPath = statSync(this.path, { throwIfNoEntry: false });
      return atPath !== undefined && atPath.ino === this.opened?.ino && atPath.dev === this.opened.dev;
    } catch {
      return false;
    }
  }

  /** Closes the file. Idempotent. */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * Why the anchor could not be moved after a commit. The records are in the log: an anchor behind it
 * is not damage, but a cut of its end would go unseen meanwhile.
 */
export function anchorNotWritten(path: string, committedSeq: number, error: unknown): GateError {
  return new GateError(
    'ERUNTIME',
    `the head anchor ${path} could not be written (${(error as Error).message}); records up to ${committedSeq} are in the log ` +
      'but a cut of its end would go unnoticed. Make the state folder writable again',
  );
}

/** Fsyncs the folder holding a file, so that the file's name survives a power loss. */
function syncFolder(path: string): void {
  const fd = openSync(dirname(path), 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
