import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_TREE_HASH,
  MerkleFrontier,
  consistencyProof,
  inclusionProof,
  leafHash,
  rootOf,
  subtreeHash,
  verifyConsistency,
  verifyInclusion,
} from '../../main/audit/merkle';

/** The leaves of the RFC 6962 reference implementations' tests (certificate-transparency C++ and Go). */
const LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map((hex) => Buffer.from(hex, 'hex'));

/** Their published roots of the trees of the first 1..8 leaves. */
const ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];

/** Their published proofs: inclusion (leaf, tree size) and consistency (old size, new size). */
const INCLUSION: Array<[number, number, string[]]> = [
  [0, 8, ['96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4']],
  [5, 8, ['bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b', 'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7']],
  [2, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
  [1, 5, ['6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b']],
];
const CONSISTENCY: Array<[number, number, string[]]> = [
  [1, 8, ['96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4']],
  [6, 8, ['0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a', 'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7']],
  [2, 5, ['5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b']],
];

// An independent, literal reading of RFC 6962 §2.1 over the data itself (not leaf hashes).
const sha = (...parts: Uint8Array[]) => parts.reduce((hash, part) => hash.update(part), createHash('sha256')).digest();
function mth(data: Buffer[]): Buffer {
  if (data.length === 0) return sha();
  if (data.length === 1) return sha(Buffer.from([0]), data[0]!);
  let k = 1;
  while (k * 2 < data.length) k *= 2;
  return sha(Buffer.from([1]), mth(data.slice(0, k)), mth(data.slice(k)));
}
function path(m: number, data: Buffer[]): Buffer[] {
  if (data.length <= 1) return [];
  let k = 1;
  while (k * 2 < data.length) k *= 2;
  return m < k ? [...path(m, data.slice(0, k)), mth(data.slice(k))] : [...path(m - k, data.slice(k)), mth(data.slice(0, k))];
}
function subproof(m: number, data: Buffer[], whole: boolean): Buffer[] {
  if (m === data.length) return whole ? [] : [mth(data)];
  let k = 1;
  while (k * 2 < data.length) k *= 2;
  return m <= k ? [...subproof(m, data.slice(0, k), whole), mth(data.slice(k))] : [...subproof(m - k, data.slice(k), false), mth(data.slice(0, k))];
}

const hex = (hashes: Buffer[]) => hashes.map((hash) => hash.toString('hex'));
/** 40 leaves: the eight above, then more of growing length, to reach trees of every shape up to 40. */
const DATA = [...LEAVES, ...Array.from({ length: 32 }, (_, i) => Buffer.alloc(i + 1, i))];
const HASHES = DATA.map((data) => leafHash(data));

describe('RFC 6962 Merkle tree', () => {
  it('hashes the empty tree to SHA-256 of nothing, and one leaf to SHA-256(0x00 ‖ leaf)', () => {
    expect(EMPTY_TREE_HASH.toString('hex')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(rootOf([]).toString('hex')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(rootOf([leafHash(Buffer.from('abc'))]).toString('hex')).toBe(createHash('sha256').update(Buffer.concat([Buffer.from([0]), Buffer.from('abc')])).digest('hex'));
  });

  it('gives the published roots of the reference leaves for sizes 1 to 8', () => {
    for (let size = 1; size <= 8; size++) {
      expect(rootOf(HASHES.slice(0, size)).toString('hex'), `size ${size}`).toBe(ROOTS[size - 1]);
      expect(mth(DATA.slice(0, size)).toString('hex'), `reference at size ${size}`).toBe(ROOTS[size - 1]);
    }
  });

  it('gives the published inclusion and consistency proofs, and verifies them', () => {
    for (const [index, size, expected] of INCLUSION) {
      const proof = inclusionProof(HASHES, index, size);
      expect(hex(proof), `leaf ${index} in ${size}`).toEqual(expected);
      expect(verifyInclusion(index, size, HASHES[index]!, proof, Buffer.from(ROOTS[size - 1]!, 'hex'))).toBe(true);
    }
    for (const [oldSize, newSize, expected] of CONSISTENCY) {
      const proof = consistencyProof(HASHES, oldSize, newSize);
      expect(hex(proof), `${oldSize} to ${newSize}`).toEqual(expected);
      expect(verifyConsistency(oldSize, newSize, proof, Buffer.from(ROOTS[oldSize - 1]!, 'hex'), Buffer.from(ROOTS[newSize - 1]!, 'hex'))).toBe(true);
    }
  });

  it('agrees with the literal definition for every tree up to 40 leaves, every leaf and every pair of sizes', () => {
    const frontier = new MerkleFrontier();
    for (let size = 1; size <= DATA.length; size++) {
      frontier.push(HASHES[size - 1]!);
      const root = mth(DATA.slice(0, size));
      expect(frontier.root().equals(root), `frontier at ${size}`).toBe(true);
      expect(subtreeHash(HASHES, 0, size).equals(root)).toBe(true);
      for (let index = 0; index < size; index++) {
        const proof = inclusionProof(HASHES, index, size);
        expect(hex(proof)).toEqual(hex(path(index, DATA.slice(0, size))));
        expect(verifyInclusion(index, size, HASHES[index]!, proof, root)).toBe(true);
      }
      for (let oldSize = 1; oldSize <= size; oldSize++) {
        const proof = consistencyProof(HASHES, oldSize, size);
        expect(hex(proof)).toEqual(oldSize === size ? [] : hex(subproof(oldSize, DATA.slice(0, size), true)));
        expect(verifyConsistency(oldSize, size, proof, mth(DATA.slice(0, oldSize)), root), `${oldSize} to ${size}`).toBe(true);
      }
    }
  });

  it('refuses every proof that was altered, or is checked against another leaf, index, size or root', () => {
    const size = 13;
    const root = rootOf(HASHES.slice(0, size));
    for (let index = 0; index < size; index++) {
      const proof = inclusionProof(HASHES, index, size);
      expect(verifyInclusion(index, size, HASHES[(index + 1) % size]!, proof, root)).toBe(false);
      if ((index ^ 1) < size) expect(verifyInclusion(index ^ 1, size, HASHES[index]!, proof, root)).toBe(false);
      expect(verifyInclusion(index, size + 1, HASHES[index]!, proof, rootOf(HASHES.slice(0, size + 1)))).toBe(false);
      expect(verifyInclusion(size, size, HASHES[index]!, proof, root)).toBe(false);
      expect(verifyInclusion(index, size, HASHES[index]!, proof.slice(0, -1), root)).toBe(false);
      expect(verifyInclusion(index, size, HASHES[index]!, [...proof, root], root)).toBe(false);
      for (let i = 0; i < proof.length; i++) {
        const bent = proof.map((hash, j) => (j === i ? Buffer.from(hash.map((byte, b) => (b === 0 ? byte ^ 1 : byte))) : hash));
        expect(verifyInclusion(index, size, HASHES[index]!, bent, root)).toBe(false);
      }
    }
    for (let oldSize = 1; oldSize < size; oldSize++) {
      const proof = consistencyProof(HASHES, oldSize, size);
      const oldRoot = rootOf(HASHES.slice(0, oldSize));
      const otherOld = rootOf([leafHash('forged'), ...HASHES.slice(1, oldSize)]);
      expect(verifyConsistency(oldSize, size, proof, otherOld, root), `forged old tree of ${oldSize}`).toBe(false);
      expect(verifyConsistency(oldSize, size, proof, oldRoot, rootOf(HASHES.slice(0, size + 1)))).toBe(false);
      expect(verifyConsistency(oldSize, size, [], oldRoot, root)).toBe(false);
      expect(verifyConsistency(size, oldSize, proof, root, oldRoot)).toBe(false);
    }
  });
});
