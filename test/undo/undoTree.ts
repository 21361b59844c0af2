import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A digest of a whole folder tree, computed apart from the gate's own snapshot code: every entry's
 * path, type and permission bits, a file's SHA-256 and a symlink's target. Two trees are the same
 * when their digests are.
 */
export function treeDigest(root: string): string {
  return createHash('sha256').update(treeListing(root).join('\n')).digest('hex');
}

/** The tree as lines, one per entry, sorted: what treeDigest hashes, and what a failing test shows. */
export function treeListing(root: string, dir = ''): string[] {
  const lines: string[] = [];
  for (const name of readdirSync(join(root, dir)).sort()) {
    const path = dir === '' ? name : `${dir}/${name}`;
    const stats = lstatSync(join(root, path));
    const mode = (stats.mode & 0o7777).toString(8);
    if (stats.isDirectory()) {
      lines.push(`${path}/ ${mode}`);
      lines.push(...treeListing(root, path));
    } else if (stats.isSymbolicLink()) lines.push(`${path} -> ${readlinkSync(join(root, path))}`);
    else lines.push(`${path} ${mode} ${createHash('sha256').update(readFileSync(join(root, path))).digest('hex').slice(0, 16)}`);
  }
  return lines;
}
