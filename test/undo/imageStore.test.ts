import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fastBlake3BytesHex, loadFastBlake3 } from '../../main/audit/fastBlake3';
import { ImageStore } from '../../main/undo/imageStore';

let folder: string;
const SECRET = 'tok-9f8e7d6c5b4a';

beforeAll(() => loadFastBlake3());
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'toolgate-store-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

/** A store in this test's folder (a second one over the same folder is the store after a restart). */
function store(maxBytes = 1024 ** 2, maxFileBytes?: number): ImageStore {
  return new ImageStore({ folder, maxBytes, ...(maxFileBytes ? { maxFileBytes } : {}), redact: (text) => text.split(SECRET).join('$ENV.DEPLOY_KEY') });
}

function objects(): string[] {
  return readdirSync(join(folder, 'objects'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name);
}

describe('the before-image store', () => {
  it('names each image by the BLAKE3 of its bytes and keeps the same content once', () => {
    const images = store();
    const bytes = Buffer.from('hello\n');
    const hash = fastBlake3BytesHex(bytes);
    let reads = 0;
    const first = images.keep(hash, bytes.length, () => (reads++, bytes));
    const second = images.keep(hash, bytes.length, () => (reads++, bytes));
    expect(first).toEqual({ image: hash });
    expect(second).toEqual({ image: hash });
    expect(reads).toBe(1);
    expect(objects()).toEqual([hash]);
    expect(images.read(hash)).toEqual(bytes);
  });

  it('keeps a content holding a known secret redacted, and says so', () => {
    const images = store();
    const bytes = Buffer.from(`KEY=${SECRET}\n`);
    const note = images.keep(fastBlake3BytesHex(bytes), bytes.length, () => bytes);
    expect(note.redacted).toBe(true);
    expect(images.read(note.image!)!.toString()).toBe('KEY=$ENV.DEPLOY_KEY\n');
    for (const name of objects()) expect(readFileSync(join(folder, 'objects', name.slice(0, 2), name), 'utf8')).not.toContain(SECRET);
  });

  it('lists a file over the per-file limit without reading it', () => {
    const images = store(1024 ** 2, 10);
    expect(images.keep('a'.repeat(64), 11, () => { throw new Error('read'); })).toEqual({ tooLarge: true });
  });

  it('drops the least recently used images first once over its size, and survives a restart', () => {
    const images = store(25);
    const keep = (text: string) => {
      const bytes = Buffer.from(text);
      return images.keep(fastBlake3BytesHex(bytes), bytes.length, () => bytes).image!;
    };
    const old = keep('0123456789');
    const middle = keep('abcdefghij');
    keep('0123456789'.split('').reverse().join(''));
    // Used again: now newer than `middle`.
    images.noteFor(old);
    expect(images.flush().dropped).toBe(1);
    expect(images.has(middle)).toBe(false);
    expect(images.has(old)).toBe(true);
    const reopened = store(25);
    expect(reopened.has(old)).toBe(true);
    expect(reopened.has(middle)).toBe(false);
    expect(reopened.usage().bytes).toBe(20);
  });

  it('never reads a name that is not a BLAKE3 hex name (one read back from a tampered log)', () => {
    expect(store().read('../../../etc/passwd')).toBeUndefined();
  });
});
