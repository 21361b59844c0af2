import { createHash } from 'node:crypto';

/**
 * The RFC 6962 (Certificate Transparency) Merkle tree hash, as RFC 9162 §2.1 restates it:
 * SHA-256, leaves hashed as 0x00 ‖ data, inner nodes as 0x01 ‖ left ‖ right, and a tree of n leaves
 * split at the largest power of two below n. Proofs are lists of 32-byte hashes.
 */

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/** SHA-256 of the empty string: the hash of a tree with no leaves. */
export const EMPTY_TREE_HASH = createHash('sha256').digest();

/** MTH({d}) = SHA-256(0x00 ‖ d). */
export function leafHash(data: Uint8Array | string): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(data).digest();
}

/** SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

/** The largest power of two strictly below n (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[start:end]) over leaf hashes, by the definition (O(end − start)). */
export function subtreeHash(leaves: readonly Uint8Array[], start = 0, end = leaves.length): Buffer {
  const n = end - start;
  if (n === 0) return EMPTY_TREE_HASH;
  if (n === 1) return Buffer.from(leaves[start]!);
  const k = splitPoint(n);
  return nodeHash(subtreeHash(leaves, start, start + k), subtreeHash(leaves, start + k, end));
}

/**
 * The right edge of a growing tree: one hash per set bit of its size, largest subtree first. An
 * append merges equal-sized subtrees like a binary counter, so it costs O(log n) hashes, and the root
 * is a fold of at most log n hashes: the gate never rehashes the log to extend or sign it.
 */
export class MerkleFrontier {
  private readonly hashes: Buffer[] = [];
  private readonly sizes: number[] = [];
  private count = 0;

  /** How many leaves the tree holds. */
  get size(): number {
    return this.count;
  }

  /** Appends one leaf by its leaf hash. */
  push(leaf: Buffer): void {
    let hash = leaf;
    let size = 1;
    while (this.sizes.length > 0 && this.sizes[this.sizes.length - 1] === size) {
      hash = nodeHash(this.hashes.pop()!, hash);
      this.sizes.pop();
      size *= 2;
    }
    this.hashes.push(hash);
    this.sizes.push(size);
    this.count++;
  }

  /** The tree's root hash (SHA-256 of nothing for an empty tree). */
  root(): Buffer {
    if (this.hashes.length === 0) return EMPTY_TREE_HASH;
    let hash = this.hashes[this.hashes.length - 1]!;
    for (let i = this.hashes.length - 2; i >= 0; i--) hash = nodeHash(this.hashes[i]!, hash);
    return hash;
  }
}

/** The root of a list of leaf hashes, through the frontier (O(n), no recursion). */
export function rootOf(leaves: Iterable<Buffer>): Buffer {
  const frontier = new MerkleFrontier();
  for (const leaf of leaves) frontier.push(leaf);
  return frontier.root();
}

/** PATH(m, D[n]) of RFC 6962 §2.1.1: the inclusion proof of leaf `index` in the first `size` leaves. */
export function inclusionProof(leaves: readonly Uint8Array[], index: number, size = leaves.length): Buffer[] {
  if (!(index >= 0 && index < size && size <= leaves.length)) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
  const path = (m: number, start: number, end: number): Buffer[] => {
    const n = end - start;
    if (n === 1) return [];
    const k = splitPoint(n);
    return m < k
      ? [...path(m, start, start + k), subtreeHash(leaves, start + k, end)]
      : [...path(m - k, start + k, end), subtreeHash(leaves, start, start + k)];
  };
  return path(index, 0, size);
}

/** PROOF(m, D[n]) of RFC 6962 §2.1.2: the consistency proof from the first `oldSize` leaves to the first `newSize`. */
export function consistencyProof(leaves: readonly Uint8Array[], oldSize: number, newSize = leaves.length): Buffer[] {
  if (!(oldSize >= 0 && oldSize <= newSize && newSize <= leaves.length)) throw new RangeError(`no consistency proof from ${oldSize} to ${newSize}`);
  if (oldSize === 0 || oldSize === newSize) return [];
  const subproof = (m: number, start: number, end: number, whole: boolean): Buffer[] => {
    const n = end - start;
    if (m === n) return whole ? [] : [subtreeHash(leaves, start, end)];
    const k = splitPoint(n);
    return m <= k
      ? [...subproof(m, start, start + k, whole), subtreeHash(leaves, start + k, end)]
      : [...subproof(m - k, start + k, end, false), subtreeHash(leaves, start, start + k)];
  };
  return subproof(oldSize, 0, newSize, true);
}

/** RFC 9162 §2.1.3.2: whether `proof` shows the leaf with this hash at `index` in the tree of `size` with `root`. */
export function verifyInclusion(index: number, size: number, leaf: Uint8Array, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  if (index >= size || index < 0) return false;
  let fn = index;
  let sn = size - 1;
  let r: Buffer = Buffer.from(leaf);
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/** RFC 9162 §2.1.4.2: whether `proof` shows the tree of `oldSize` with `oldRoot` is a prefix of the one of `newSize` with `newRoot`. */
export function verifyConsistency(oldSize: number, newSize: number, proof: readonly Uint8Array[], oldRoot: Uint8Array, newRoot: Uint8Array): boolean {
  if (oldSize > newSize || oldSize < 0) return false;
  if (oldSize === newSize) return proof.length === 0 && Buffer.from(oldRoot).equals(newRoot);
  if (oldSize === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  // A power-of-two old tree is itself a node of the new one: the proof leaves it out.
  const path = (oldSize & (oldSize - 1)) === 0 ? [oldRoot, ...proof] : [...proof];
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr: Buffer = Buffer.from(path[0]!);
  let sr: Buffer = Buffer.from(path[0]!);
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && fr.equals(oldRoot) && sr.equals(newRoot);
}
