import { readdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import picomatch from 'picomatch';

/**
 * Bash's pathname expansion of an unquoted word (`real/*.txt`, `/ro?t/.b*`), for judging the files
 * a command will name. Written here over picomatch rather than with fs.globSync or a glob package:
 * bash matches segment by segment and reads `**` as `*` (globstar is off), while those libraries
 * walk whole trees for `**`, and a judge must stay bounded whatever the agent writes. Dot files
 * count as matched (bash leaves them out unless dotglob is set): more names can only make a deny or
 * ask hold, never an allow.
 */

/** Directory reads one word may cost before its expansion is given up as unbounded. */
const MAX_DIRECTORY_READS = 256;
/** Names one word may expand to before it is given up as unbounded. */
const MAX_MATCHES = 1000;

const GLOB_CHARACTER = /[*?[]/;

/** The paths a word expands to (absolute), or why they cannot all be listed. */
export type PathnameExpansion = { readonly paths: readonly string[] } | { readonly unbounded: string };

/** Whether a word (quotes removed) holds a character bash expands against the file system. */
export function hasGlob(text: string): boolean {
  return GLOB_CHARACTER.test(text);
}

/** The existing paths a glob matches (absolute), in `cwd` when relative; bash passes a glob that matches nothing on as it is. */
export function expandPathname(pattern: string, cwd: string): PathnameExpansion {
  const absolute = isAbsolute(pattern);
  const segments = pattern.split('/').filter((segment, index) => segment !== '' || index === 0);
  let current = [absolute ? '/' : cwd];
  let reads = 0;
  for (const segment of segments) {
    if (segment === '') continue;
    if (!hasGlob(segment)) {
      current = current.map((folder) => join(folder, segment));
      continue;
    }
    const matches = picomatch(segment, { dot: true });
    const next: string[] = [];
    for (const folder of current) {
      if (++reads > MAX_DIRECTORY_READS) return { unbounded: `${pattern} reaches more than ${MAX_DIRECTORY_READS} folders` };
      let names: string[];
      try {
        names = readdirSync(folder);
      } catch {
        continue;
      }
      for (const name of names) if (matches(name)) next.push(join(folder, name));
      if (next.length > MAX_MATCHES) return { unbounded: `${pattern} names more than ${MAX_MATCHES} files` };
    }
    current = next;
  }
  return { paths: current };
}
