import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../shared/canonicalJson';
import { blake3Hex, hashCanonical } from '../../shared/hash';

describe('blake3Hex', () => {
  it('matches the official BLAKE3 test vector for empty input', () => {
    // BLAKE3 test_vectors.json, input_len 0, default hash (first 32 bytes).
    expect(blake3Hex('')).toBe('af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262');
  });

  it('matches the published BLAKE3 hash of "abc"', () => {
    expect(blake3Hex('abc')).toBe('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
  });

  it('hashes text as UTF-8, so the same characters always give the same digest', () => {
    expect(blake3Hex('é')).not.toBe(blake3Hex('e\u0301'));
    expect(blake3Hex('😀')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('hashCanonical', () => {
  it('hashes the canonical form, so key order does not change the hash', () => {
    expect(hashCanonical({ b: 1, a: [2, 3] })).toBe(hashCanonical({ a: [2, 3], b: 1 }));
    expect(hashCanonical({ a: 1 })).toBe(blake3Hex(canonicalize({ a: 1 })));
    expect(hashCanonical({ a: 1 })).not.toBe(hashCanonical({ a: 2 }));
  });
});
