import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ImageNote } from '../../shared/effects';
import { fastBlake3BytesHex } from '../audit/fastBlake3';

/** The store's default size: 1 GiB (settings `undoStoreBytes`). */
export const DEFAULT_STORE_BYTES = 1024 ** 3;

/** Files larger than this are listed in a call's effects, never stored: 50 MB. */
export const MAX_IMAGE_FILE_BYTES = 50 * 1000 * 1000;

/** How a store is set up. */
export interface ImageStoreOptions {
  /** Its folder, inside the state folder (tools never see it). */
  folder: string;
  /** Total bytes kept; past it the least recently used images are dropped. */
  maxBytes: number;
  /** Files over this many bytes are not stored. */
  maxFileBytes?: number;
  /** Replaces every secret the gate knows in a text by its placeholder. */
  redact: (text: string) => string;
}

/**
 * The before-images of calls that changed the workspace: content-addressed (named by the BLAKE3 of
 * the bytes kept), so a file seen by many calls is stored once. A content holding a secret the
 * redactor knows is kept redacted under its own name, and a small file named by its real hash points
 * at it; the undo that puts it back says so.
 *
 * There is no index file: the folder is the index, read once at start (each image's size, and its
 * age from its mtime), then kept in memory. A use makes an image young again in memory only, so after
 * a restart an image's age is the time it was stored. Images are written by a rename (never half
 * written) but not flushed to disk one by one: a power cut may lose the newest, and their calls then
 * say "no longer undoable", never put back wrong bytes (a name is the hash of what it holds).
 */
export class ImageStore {
  /** Stored images by name: their size and when last used (a counter, or an mtime read at start). */
  private readonly images = new Map<string, { bytes: number; usedAt: number }>();
  /** Content hashes whose stored image is another (the content held a secret and was stored redacted). */
  private readonly redactedAs = new Map<string, string>();
  private clock = 0;
  private total = 0;

  constructor(private readonly options: ImageStoreOptions) {
    mkdirSync(join(options.folder, 'objects'), { recursive: true, mode: 0o700 });
    mkdirSync(join(options.folder, 'redacted'), { recursive: true, mode: 0o700 });
    for (const entry of readdirSync(join(options.folder, 'objects'), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !IMAGE_NAME.test(entry.name)) continue;
      const stats = statSync(join(entry.parentPath, entry.name));
      this.images.set(entry.name, { bytes: stats.size, usedAt: stats.mtimeMs });
      this.total += stats.size;
      this.clock = Math.max(this.clock, stats.mtimeMs);
    }
    for (const name of readdirSync(join(options.folder, 'redacted'))) {
      const image = readFileSync(join(options.folder, 'redacted', name), 'utf8');
      if (IMAGE_NAME.test(name) && this.images.has(image)) this.redactedAs.set(name, image);
    }
  }

  /** The per-file limit. */
  get maxFileBytes(): number {
    return this.options.maxFileBytes ?? MAX_IMAGE_FILE_BYTES;
  }

  /** The bytes and images held now. */
  usage(): { bytes: number; images: number; maxBytes: number } {
    return { bytes: this.total, images: this.images.size, maxBytes: this.options.maxBytes };
  }

  /** How content with this hash is kept, if it is (and marks it used). */
  noteFor(contentHash: string): ImageNote | undefined {
    const alias = this.redactedAs.get(contentHash);
    const image = alias ?? contentHash;
    const entry = this.images.get(image);
    if (!entry) return undefined;
    entry.usedAt = ++this.clock;
    return alias ? { image, redacted: true } : { image };
  }

  /**
   * Keeps the content of a file whose BLAKE3 is `contentHash` (read only when not already kept),
   * redacted when it holds a known secret. A file over the per-file limit is not read: tooLarge.
   */
  keep(contentHash: string, size: number, read: () => Buffer): ImageNote {
    if (size > this.maxFileBytes) return { tooLarge: true };
    const known = this.noteFor(contentHash);
    if (known) return known;
    const bytes = read();
    const text = bytes.toString('utf8');
    // Only text that decodes whole can hold a secret as the redactor spells it; other bytes are kept as they are.
    const redactedText = Buffer.byteLength(text) === bytes.length ? this.options.redact(text) : text;
    const stored = redactedText === text ? bytes : Buffer.from(redactedText, 'utf8');
    const image = fastBlake3BytesHex(stored);
    if (!this.images.has(image)) {
      writeByRename(this.objectPath(image), stored);
      this.images.set(image, { bytes: stored.length, usedAt: 0 });
      this.total += stored.length;
    }
    this.images.get(image)!.usedAt = ++this.clock;
    if (stored === bytes) return { image };
    writeByRename(join(this.options.folder, 'redacted', contentHash), Buffer.from(image));
    this.redactedAs.set(contentHash, image);
    return { image, redacted: true };
  }

  /** Whether an image is still held (it may have been dropped to keep the store under its size). */
  has(image: string): boolean {
    // A name comes back from the audit log: only a BLAKE3 hex name is ever a path in the store.
    return IMAGE_NAME.test(image) && this.images.has(image) && existsSync(this.objectPath(image));
  }

  /** The bytes of an image, or undefined when it was dropped. */
  read(image: string): Buffer | undefined {
    if (!this.has(image)) return undefined;
    return readFileSync(this.objectPath(image));
  }

  /** Drops the least recently used images until the store fits its size. */
  flush(): { dropped: number } {
    let dropped = 0;
    if (this.total <= this.options.maxBytes) return { dropped };
    const oldestFirst = [...this.images].sort(([, a], [, b]) => a.usedAt - b.usedAt);
    for (const [image, { bytes }] of oldestFirst) {
      if (this.total <= this.options.maxBytes) break;
      rmSync(this.objectPath(image), { force: true });
      this.images.delete(image);
      this.total -= bytes;
      dropped++;
    }
    for (const [content, image] of this.redactedAs) {
      if (this.images.has(image)) continue;
      rmSync(join(this.options.folder, 'redacted', content), { force: true });
      this.redactedAs.delete(content);
    }
    return { dropped };
  }

  private objectPath(image: string): string {
    return join(this.options.folder, 'objects', image.slice(0, 2), image);
  }
}

/** A BLAKE3 name as 64 lowercase hex digits. */
const IMAGE_NAME = /^[0-9a-f]{64}$/;

/** Writes a file whole or not at all (a temp beside it, renamed over), mode 0600, without flushing it to disk. */
function writeByRename(path: string, bytes: Buffer): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, bytes, { mode: 0o600, flag: 'wx' });
  renameSync(temp, path);
}
