import { readFileSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';

/**
 * `~` and `~user` as bash expands them: `~` is HOME, `~name` the home folder the passwd database
 * gives that user. Node has no getpwnam(), and no maintained package reads the passwd file without
 * a native build, so the file's documented format (passwd(5): seven colon-separated fields, the
 * sixth the home folder) is read here. A user known only to another NSS source (LDAP, systemd)
 * is not found: the caller treats such a `~name` as a place only known when the line runs.
 */

/** Where the passwd database lives (a test may point it elsewhere through the options). */
export const PASSWD_FILE = '/etc/passwd';

/** The passwd file's home folders by user, re-read when the file changes. */
let cached: { file: string; mtimeMs: number; size: number; homes: Map<string, string> } | undefined;

function passwdHomes(file: string): Map<string, string> {
  let stats;
  try {
    stats = statSync(file);
  } catch {
    return new Map();
  }
  if (cached && cached.file === file && cached.mtimeMs === stats.mtimeMs && cached.size === stats.size) return cached.homes;
  const homes = new Map<string, string>();
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // Unreadable: every ~name is then unknown, which the callers treat as fail-closed.
  }
  for (const line of text.split('\n')) {
    const fields = line.split(':');
    if (fields.length < 7 || fields[0] === '' || line.startsWith('#')) continue;
    if (!homes.has(fields[0]!)) homes.set(fields[0]!, fields[5]!);
  }
  cached = { file, mtimeMs: stats.mtimeMs, size: stats.size, homes };
  return homes;
}

/** The home folder of a user by name, from the passwd database (or os.userInfo for the gate's own user); undefined when unknown. */
export function userHome(name: string, passwdFile = PASSWD_FILE): string | undefined {
  const home = passwdHomes(passwdFile).get(name);
  if (home !== undefined) return home;
  try {
    const self = userInfo();
    return self.username === name ? self.homedir : undefined;
  } catch {
    return undefined;
  }
}

/** What a leading tilde of a word stands for. */
export type TildeExpansion =
  /** No tilde prefix: the word is a path as it is. */
  | { readonly kind: 'none' }
  /** The expanded path. */
  | { readonly kind: 'path'; readonly path: string }
  /** A tilde prefix whose folder is only known when the line runs (an unknown user, `~-`, the directory stack). */
  | { readonly kind: 'unknown'; readonly literal: string; readonly why: string };

/** Where `~` and `~+` lead when a word is expanded. */
export interface TildeContext {
  readonly home: string;
  /** The folder the word is read in (`~+` is $PWD). */
  readonly cwd?: string;
  readonly passwdFile?: string;
}

/**
 * Expands the tilde prefix of a path (`~`, `~/x`, `~name/x`, `~+/x`) as bash does; `text` is the
 * word with its quotes already judged unquoted by the caller.
 */
export function expandTilde(text: string, context: TildeContext): TildeExpansion {
  const prefix = /^~([^/]*)(?=\/|$)/.exec(text);
  if (!prefix) return { kind: 'none' };
  const name = prefix[1]!;
  const rest = text.slice(prefix[0].length);
  if (name === '') return { kind: 'path', path: `${context.home}${rest}` };
  if (name === '+' && context.cwd !== undefined) return { kind: 'path', path: `${context.cwd}${rest}` };
  if (/^[+-]?\d*$/.test(name)) return { kind: 'unknown', literal: text, why: `${prefix[0]} names a folder of the shell's directory stack, known only when the line runs` };
  const home = userHome(name, context.passwdFile);
  if (home === undefined) return { kind: 'unknown', literal: text, why: `${prefix[0]} names no user of ${context.passwdFile ?? PASSWD_FILE}; the system may still know the user when the line runs` };
  return { kind: 'path', path: rest === '' ? home : join(home, rest) };
}
