import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Entries looked at under the folders of one command before the links it follows are taken as unknown. */
export const MAX_FOLLOWED_ENTRIES = 20_000;

/** Where the symbolic links under some folders lead, for a program that follows them (`grep -R`, `find -L`). */
export interface FollowedLinks {
  /** The real paths the links lead to (a folder's whole tree is reached below it). */
  readonly targets: string[];
  /** Why not every link could be looked at, if not. */
  readonly unknown?: string;
}

/**
 * The real targets of the symbolic links under `folders` (each an absolute path; a file or a missing
 * path is skipped), and under the folders those links lead to, as a program that follows links
 * reaches them: `grep -R key src` reads `src/evil/key.txt` where `src/evil` is a link to `../secret`.
 * At most MAX_FOLLOWED_ENTRIES entries are looked at; past that, `unknown` says so.
 */
export function followedLinks(folders: readonly string[]): FollowedLinks {
  const targets = new Set<string>();
  const seen = new Set<string>();
  const pending: string[] = [];
  for (const folder of folders) {
    try {
      if (statSync(folder).isDirectory()) pending.push(realpathSync(folder));
    } catch {
      // Not there (yet): nothing below it to follow.
    }
  }
  let looked = 0;
  while (pending.length > 0) {
    const folder = pending.pop()!;
    if (seen.has(folder)) continue;
    seen.add(folder);
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++looked > MAX_FOLLOWED_ENTRIES) {
        return { targets: [...targets], unknown: `more than ${MAX_FOLLOWED_ENTRIES} entries are below ${folders.join(', ')}, so where the links it follows lead is not all known` };
      }
      const path = join(folder, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(path);
        } catch {
          continue; // a dangling link leads nowhere
        }
        targets.add(target);
        try {
          if (lstatSync(target).isDirectory()) pending.push(target);
        } catch {
          // gone since
        }
      }
    }
  }
  return { targets: [...targets] };
}
