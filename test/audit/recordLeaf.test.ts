/**
 * `audit verify` hashes the text the stored columns spell instead of parsing and re-canonicalizing
 * each payload, with the WebAssembly BLAKE3: proved here to give recordHash's answer, byte for byte,
 * over many random records, including the strings where JSON escaping is easy to get wrong.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { AuditKindSchema } from '../../shared/audit';
import { canonicalize, toWellFormedJson } from '../../shared/canonicalJson';
import { blake3Hex } from '../../shared/hash';
import { fastBlake3Hex, fastBlake3Matches, loadFastBlake3 } from '../../main/audit/fastBlake3';
import { leafHash } from '../../main/audit/merkle';
import { recordHash } from '../../main/audit/recordHash';
import { recordLeafHash, storedCanonicalText, storedLeafHash } from '../../main/audit/recordLeaf';

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const AWKWARD = ['"', '\\', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u001f', '\u007f', '\u2028', '\u2029', 'é', '日本', '😀', '\uD800', '\uDFFF', '</script>', '/', '\u00ad'];

function randomString(next: () => number): string {
  let text = '';
  const length = Math.floor(next() * 12);
  for (let i = 0; i < length; i++) {
    text += next() < 0.4 ? AWKWARD[Math.floor(next() * AWKWARD.length)]! : String.fromCharCode(32 + Math.floor(next() * 95));
  }
  return text;
}

function randomValue(next: () => number, depth: number): unknown {
  const pick = next();
  if (depth > 3 || pick < 0.3) return randomString(next);
  if (pick < 0.4) return Math.floor(next() * 1e6) - 5e5;
  if (pick < 0.5) return [0.1, 1e21, -0, 5e-7, 123.456, 2 ** 53][Math.floor(next() * 6)];
  if (pick < 0.55) return next() < 0.5;
  if (pick < 0.6) return null;
  if (pick < 0.75) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(next() * 5) }, () => [randomString(next), randomValue(next, depth + 1)]));
}

beforeAll(async () => {
  await loadFastBlake3();
});

describe('the stored record text', () => {
  it('is the canonical JSON recordHash hashes, and the fast hash of it is recordHash, for 5,000 random records', () => {
    const next = random(12);
    let prev = '0'.repeat(64);
    for (let i = 0; i < 5000; i++) {
      // Stored as the store stores it: the payload made well-formed and canonicalized.
      const payloadText = canonicalize(toWellFormedJson(randomValue(next, 0)));
      const fields = {
        seq: 1 + Math.floor(next() * 2 ** 40),
        callId: randomString(next) || `call-${i}`,
        kind: AuditKindSchema.options[i % AuditKindSchema.options.length]!,
        time: new Date(1.7e12 + Math.floor(next() * 1e11)).toISOString(),
        payload: JSON.parse(payloadText) as unknown,
      };
      const row = { seq: fields.seq, call_id: toWellFormedJson(fields.callId) as string, kind: fields.kind, time: fields.time, payload: payloadText };
      const wellFormed = { ...fields, callId: row.call_id };
      const text = storedCanonicalText(row);
      expect(text).toBe(canonicalize({ seq: wellFormed.seq, callId: wellFormed.callId, kind: wellFormed.kind, time: wellFormed.time, payload: wellFormed.payload }));
      const hash = recordHash(prev, wellFormed);
      expect(fastBlake3Hex(prev + text)).toBe(hash);
      expect(fastBlake3Matches(prev, text, hash)).toBe(true);
      expect(storedLeafHash(row).equals(recordLeafHash(wellFormed))).toBe(true);
      prev = hash;
    }
  });

  it('hashes with the WebAssembly BLAKE3 exactly as the pure-JS one, across lengths and characters', () => {
    const next = random(99);
    for (let length = 0; length < 3000; length += 1 + Math.floor(next() * 40)) {
      const text = Array.from({ length }, () => (next() < 0.1 ? '😀é' : String.fromCharCode(32 + Math.floor(next() * 95)))).join('');
      expect(fastBlake3Hex(text)).toBe(blake3Hex(text));
    }
  });

  it("tells verify a record's hash does not match when its text, its link or the stored hash differ, in any spelling", () => {
    const prev = 'ab'.repeat(32);
    const text = '{"callId":"c","kind":"invoked","payload":{"é":"😀"},"seq":1,"time":"t"}';
    const hash = fastBlake3Hex(prev + text);
    expect(fastBlake3Matches(prev, text, hash)).toBe(true);
    expect(fastBlake3Matches(prev, text.replace('😀', '😁'), hash)).toBe(false);
    expect(fastBlake3Matches('cd'.repeat(32), text, hash)).toBe(false);
    expect(fastBlake3Matches(prev, text, hash.toUpperCase())).toBe(false);
    expect(fastBlake3Matches(prev, text, `${hash.slice(0, 62)}zz`)).toBe(false);
    expect(fastBlake3Matches(prev, text, hash.slice(0, 62))).toBe(false);
    expect(fastBlake3Matches(prev, 'x'.repeat(200_000), fastBlake3Hex(prev + 'x'.repeat(200_000)))).toBe(true);
  });

  it('makes a leaf of SHA-256(0x00 ‖ canonical text), so an edited payload is another leaf', () => {
    const row = { seq: 7, call_id: 'call-1', kind: 'invoked', time: '2026-11-23T12:00:00.000Z', payload: '{"tool":"read_file"}' };
    expect(storedLeafHash(row).equals(leafHash('{"callId":"call-1","kind":"invoked","payload":{"tool":"read_file"},"seq":7,"time":"2026-11-23T12:00:00.000Z"}'))).toBe(true);
    expect(storedLeafHash({ ...row, payload: '{"tool":"write_file"}' }).equals(storedLeafHash(row))).toBe(false);
  });
});
