import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';

/** The last record the gate wrote, kept outside the database so that cutting the log's tail shows. */
export interface Head {
  seq: number;
  hash: string;
}

const WIDTH = 20;

/** Reads the head anchor, if one was written. */
export function readHead(path: string): Head | undefined {
  if (!existsSync(path)) return undefined;
  const match = /^(\d+) ([0-9a-f]{64})/.exec(readFileSync(path, 'utf8'));
  return match ? { seq: Number(match[1]), hash: match[2]! } : undefined;
}

/** Keeps the head anchor file open and overwrites it in place (fixed width) after each append. */
export class HeadWriter {
  private fd: number | undefined;

  constructor(path: string) {
    this.fd = openSync(path, existsSync(path) ? 'r+' : 'w+', 0o600);
  }

  /** Records the newest seq and hash. */
  write(head: Head): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, `${String(head.seq).padStart(WIDTH, '0')} ${head.hash}\n`, 0);
  }

  /** Closes the file. Idempotent. */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}
