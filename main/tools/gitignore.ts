/**
 * A small .gitignore matcher: enough of git's rules for the workspace tools to hide what a
 * repository hides. Supported: `#` comments, blank lines, `\` escapes, trailing-space trimming,
 * `!` negation, a trailing `/` (directories only), `/`-anchoring (a slash at the start or in the
 * middle ties the pattern to the .gitignore's folder; without one it matches a name at any depth),
 * `*`, `?`, `[...]` classes and `**` as a whole segment (leading, trailing or in the middle: any
 * number of folders).
 * As in git, nothing below an ignored directory can be re-included, and a deeper .gitignore wins
 * over a shallower one. Paths are workspace-relative and use `/`.
 */

/** One line of a .gitignore, compiled. */
interface IgnoreRule {
  /** Tested against the path relative to the .gitignore's folder. */
  readonly regex: RegExp;
  /** A `!` line: a match un-ignores. */
  readonly negated: boolean;
  /** A trailing `/`: matches directories only. */
  readonly directoryOnly: boolean;
}

/** Every .gitignore found so far, keyed by the folder it sits in ('' for the root). */
export class GitignoreMatcher {
  private readonly rulesByFolder = new Map<string, IgnoreRule[]>();

  /** Adds the rules of the .gitignore in `folder` (workspace-relative, '' for the root). */
  addFile(folder: string, text: string): void {
    const rules = parseGitignore(text);
    if (rules.length === 0) return;
    const key = normalizeFolder(folder);
    this.rulesByFolder.set(key, [...(this.rulesByFolder.get(key) ?? []), ...rules]);
  }

  /**
   * Whether `path` is ignored: it or one of its parent directories matches, last rule winning.
   * Parents at or above `below` are not judged: a folder someone asked for by name is searched even
   * when it is itself ignored.
   */
  ignores(path: string, isDirectory: boolean, below = ''): boolean {
    const parts = normalizeFolder(path).split('/');
    const base = normalizeFolder(below);
    const first = base === '' ? 1 : base.split('/').length + 1;
    for (let count = first; count <= parts.length; count++) {
      const candidate = parts.slice(0, count).join('/');
      if (this.matchesItself(candidate, count < parts.length || isDirectory)) return true;
    }
    return false;
  }

  /** The verdict on `path` alone (its parents not considered): the last matching rule decides. */
  private matchesItself(path: string, isDirectory: boolean): boolean {
    let ignored = false;
    const parts = path.split('/');
    // Rules of shallower files first, so a deeper .gitignore (and a later line) overrides.
    for (let depth = 0; depth < parts.length; depth++) {
      const folder = parts.slice(0, depth).join('/');
      const rules = this.rulesByFolder.get(folder);
      if (rules === undefined) continue;
      const relative = parts.slice(depth).join('/');
      for (const rule of rules) {
        if (rule.directoryOnly && !isDirectory) continue;
        if (rule.regex.test(relative)) ignored = !rule.negated;
      }
    }
    return ignored;
  }
}

/** Compiles the lines of a .gitignore; lines that cannot mean anything are skipped. */
export function parseGitignore(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    let line = trimTrailingSpaces(rawLine);
    if (line === '' || line.startsWith('#')) continue;
    let negated = false;
    if (line.startsWith('!')) {
      negated = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
      line = line.slice(1);
    }
    let directoryOnly = false;
    if (line.endsWith('/') && !line.endsWith('\\/')) {
      directoryOnly = true;
      line = line.replace(/\/+$/, '');
    }
    if (line === '') continue;
    // A slash anywhere but the end anchors the pattern to the .gitignore's folder.
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.replace(/^\/+/, '');
    const body = globToRegexSource(line);
    rules.push({ regex: new RegExp(anchored ? `^${body}$` : `^(?:.*/)?${body}$`), negated, directoryOnly });
  }
  return rules;
}

/**
 * Compiles a glob the way the workspace tools read one: without a `/` it matches a name at any
 * depth (`*.ts`), with one it matches the whole relative path (`src/lib/*.ts`, `src/**` and so on).
 */
export function compileGlob(glob: string): RegExp {
  const pattern = glob.replace(/^\.\//, '').replace(/^\/+/, '').replace(/\/+$/, '');
  const body = globToRegexSource(pattern);
  return new RegExp(pattern.includes('/') ? `^${body}$` : `^(?:.*/)?${body}$`);
}

/** The regex source of a glob: `*` and `?` stop at `/`, `**` spans folders only as a whole segment. */
export function globToRegexSource(glob: string): string {
  let source = '';
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index]!;
    if (char === '\\' && index + 1 < glob.length) {
      source += escapeRegex(glob[++index]!);
    } else if (char === '*') {
      if (glob[index + 1] === '*') {
        const atSegmentStart = index === 0 || glob[index - 1] === '/';
        const next = glob[index + 2];
        if (atSegmentStart && next === '/') {
          source += '(?:.*/)?'; // `**/`: zero or more folders
          index += 2;
          continue;
        }
        if (atSegmentStart && next === undefined) {
          source += '.*'; // trailing `/**`: everything inside
          index += 1;
          continue;
        }
        while (glob[index + 1] === '*') index++; // `**` elsewhere is an ordinary `*`
      }
      source += '[^/]*';
    } else if (char === '?') {
      source += '[^/]';
    } else if (char === '[') {
      const end = classEnd(glob, index);
      if (end === -1) {
        source += '\\[';
      } else {
        source += classSource(glob.slice(index + 1, end));
        index = end;
      }
    } else {
      source += escapeRegex(char);
    }
  }
  return source;
}

/** Index of the `]` closing the class opened at `start`, or -1 (then the `[` is literal). */
function classEnd(glob: string, start: number): number {
  let index = start + 1;
  if (glob[index] === '!' || glob[index] === '^') index++;
  if (glob[index] === ']') index++; // a leading ] is a member
  for (; index < glob.length; index++) {
    if (glob[index] === '\\') index++;
    else if (glob[index] === ']') return index;
  }
  return -1;
}

/** A glob class body as a regex class that never matches `/`. */
function classSource(body: string): string {
  let negated = false;
  if (body.startsWith('!') || body.startsWith('^')) {
    negated = true;
    body = body.slice(1);
  }
  let members = '';
  for (let index = 0; index < body.length; index++) {
    const char = body[index]!;
    if (char === '\\' && index + 1 < body.length) members += `\\${body[++index]!}`;
    else if (char === ']' || char === '[' || char === '^' || char === '\\') members += `\\${char}`;
    else members += char;
  }
  return negated ? `[^/${members}]` : `(?!/)[${members}]`;
}

function escapeRegex(char: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(char) ? `\\${char}` : char;
}

/** Trailing spaces are dropped unless the last one is escaped with a backslash. */
function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && (line[end - 1] === ' ' || line[end - 1] === '\t')) {
    if (end >= 2 && line[end - 2] === '\\') break;
    end--;
  }
  return line.slice(0, end);
}

function normalizeFolder(path: string): string {
  const slashed = path.replace(/\\/g, '/').replace(/^(?:\.\/)+/, '').replace(/^\/+|\/+$/g, '');
  return slashed === '.' ? '' : slashed;
}
