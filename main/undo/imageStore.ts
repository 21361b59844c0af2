import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ImageNote } from '../../shared/effects';
import { fastBlake3BytesHex } from '../audit/fastBlake3';
import { writeFileAtomically } from '../state/atomicFile';

/** The store's default size: 1 GiB (settings `undoStoreBytes`). */
export const DEFAULT_STORE_BYTES = 1024 ** 3;

/** Files larger than this are listed in a call's effects, never stored: 50 MB. */
export const MAX_IMAGE_FILE_BYTES = 50 * 1000 * 1000;

const IndexSchema = z.object({
  /** Monotonic use counter: what "oldest" means when images are dropped. */
  clock: z.number().int().nonnegative(),
  /** Stored images by name (BLAKE3 of the stored bytes): their size and when last used. */
  images: z.record(z.string(), z.object({ bytes: z.number().int().nonnegative(), usedAt: z.number().int() })),
  /** Content hashes whose stored image is another (the content held a secret and was stored redacted). */
  redactedAs: z.record(z.string(), z.string()),
});
type StoreIndex = z.infer<typeof IndexSchema>;

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
 * redactor knows is kept redacted under its own name, and its real hash points at it; the undo that
 * puts it back says so. The index is one JSON file written atomically at each flush.
 */
export class ImageStore {
  private readonly index: StoreIndex;
  private readonly indexPath: string;
  private dirty = false;
  private total = 0;

  constructor(private readonly options: ImageStoreOptions) {
    mkdirSync(join(options.folder, 'objects'), { recursive: true, mode: 0o700 });
    this.indexPath = join(options.folder, 'index.json');
    this.index = readIndex(this.indexPath);
    for (const { bytes } of Object.values(this.index.images)) this.total += bytes;
  }

  /** The per-file limit. */
  get maxFileBytes(): number {
    return this.options.maxFileBytes ?? MAX_IMAGE_FILE_BYTES;
  }

  /** The bytes and images held now. */
  usage(): { bytes: number; images: number; maxBytes: number } {
    return { bytes: this.total, images: Object.keys(this.index.images).length, maxBytes: this.options.maxBytes };
  }

  /** How content with this hash is kept, if it is (and marks it used). */
  noteFor(contentHash: string): ImageNote | undefined {
    const alias = this.index.redactedAs[contentHash];
    const image = alias ?? contentHash;
    const entry = this.index.images[image];
    if (!entry) return undefined;
    entry.usedAt = ++this.index.clock;
    this.dirty = true;
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
    if (!this.index.images[image]) {
      const path = this.objectPath(image);
      mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
      writeFileAtomically(path, stored, 0o600);
      this.index.images[image] = { bytes: stored.length, usedAt: 0 };
      this.total += stored.length;
    }
    this.index.images[image]!.usedAt = ++this.index.clock;
    this.dirty = true;
    if (stored === bytes) return { image };
    this.index.redactedAs[contentHash] = image;
    return { image, redacted: true };
  }

  /** Whether an image is still held (it may have been dropped to keep the store under its size). */
  has(image: string): boolean {
    // A name comes back from the audit log: only a BLAKE3 hex name is ever a path in the store.
    if (!/^[0-9a-f]{64}$/.test(image)) return false;
    return this.index.images[image] !== undefined && existsSync(this.objectPath(image));
  }

  /** The bytes of an image, or undefined when it was dropped. */
  read(image: string): Buffer | undefined {
    if (!this.has(image)) return undefined;
    return readFileSync(this.objectPath(image));
  }

  /** Drops the least recently used images until the store fits its size, then writes the index. */
  flush(): { dropped: number } {
    let dropped = 0;
    if (this.total > this.options.maxBytes) {
      const oldestFirst = Object.entries(this.index.images).sort(([, a], [, b]) => a.usedAt - b.usedAt);
      for (const [image, { bytes }] of oldestFirst) {
        if (this.total <= this.options.maxBytes) break;
        rmSync(this.objectPath(image), { force: true });
        delete this.index.images[image];
        this.total -= bytes;
        dropped++;
      }
      for (const [content, image] of Object.entries(this.index.redactedAs)) if (!this.index.images[image]) delete this.index.redactedAs[content];
      this.dirty = true;
    }
    if (this.dirty) writeFileAtomically(this.indexPath, JSON.stringify(this.index), 0o600);
    this.dirty = false;
    return { dropped };
  }

  private objectPath(image: string): string {
    return join(this.options.folder, 'objects', image.slice(0, 2), image);
  }
}

/** The index as written, or an empty one (a missing or unreadable index forgets images, never invents them). */
function readIndex(path: string): StoreIndex {
  try {
    return IndexSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return { clock: 0, images: {}, redactedAs: {} };
  }
}
