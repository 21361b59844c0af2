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
    rules.push({ regex: globToRegex(line, anchored), negated, directoryOnly });
  }
  return rules;
}

/**
 * Compiles a glob the way the workspace tools read one: without a `/` it matches a name at any
 * depth (`*.ts`), with one it matches the whole relative path (`src/lib/*.ts`, `src/**` and so on).
 */
export function compileGlob(glob: string): RegExp {
  const pattern = glob.replace(/^\.\//, '').replace(/^\/+/, '').replace(/\/+$/, '');
  return globToRegex(pattern, pattern.includes('/'));
}

/** One piece of a glob: a separator, a whole-segment `**` (any number of folders), a `*` run, or something one character wide. */
type GlobToken = { readonly kind: 'slash' | 'folders' | 'star' } | { readonly kind: 'piece'; readonly source: string };

/** Any number of whole folders, written so that each repetition can end in only one place. */
const ANY_FOLDERS = '(?:[^/]*/)';

/**
 * Compiles a glob into a regex that cannot backtrack catastrophically, whatever the pattern: `*` and
 * `?` stop at `/`, `**` spans folders only as a whole segment, and an unanchored glob may start in
 * any folder. Why it stays linear-ish: between two wildcards the text is fixed, and the leftmost
 * place it fits is always as good as any later one (the next wildcard takes up the gap), so each
 * such piece is found once and committed to with an emulated atomic group (`(?=(?<n>…))\k<n>`,
 * V8 having no possessive quantifiers); repeated `**` segments collapse into one.
 */
function globToRegex(glob: string, anchored: boolean): RegExp {
  const tokens = tokenizeGlob(glob);
  if (!anchored) tokens.unshift({ kind: 'folders' });
  // Split at every `**/`: each part is a run of whole segments placed after some number of folders.
  const parts: GlobToken[][] = [[]];
  for (const token of tokens) {
    if (token.kind === 'folders') parts.push([]);
    else parts[parts.length - 1]!.push(token);
  }
  const atomic = atomicGroupWriter();
  const first = partSource(parts[0]!, atomic);
  if (parts.length === 1) return new RegExp(`^${first}$`);
  let source = `^${first}`;
  for (const middle of parts.slice(1, -1)) {
    if (middle.length > 0) source += atomic(`${ANY_FOLDERS}*?${partSource(middle, atomic)}`);
  }
  return new RegExp(`${source}${ANY_FOLDERS}*${partSource(parts[parts.length - 1]!, atomic)}$`);
}

/** Reads a glob into tokens, with git's reading of `**`, `\` escapes and `[...]` classes. */
function tokenizeGlob(glob: string): GlobToken[] {
  const tokens: GlobToken[] = [];
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index]!;
    if (char === '\\' && index + 1 < glob.length) {
      const escaped = glob[++index]!;
      tokens.push(escaped === '/' ? { kind: 'slash' } : { kind: 'piece', source: escapeRegex(escaped) });
    } else if (char === '/') {
      tokens.push({ kind: 'slash' });
    } else if (char === '*') {
      if (glob[index + 1] === '*') {
        const atSegmentStart = index === 0 || glob[index - 1] === '/';
        const next = glob[index + 2];
        if (atSegmentStart && next === '/') {
          tokens.push({ kind: 'folders' }); // `**/`: zero or more folders
          index += 2;
          continue;
        }
        if (atSegmentStart && next === undefined) {
          tokens.push({ kind: 'piece', source: '.*' }); // trailing `/**`: everything inside
          index += 1;
          continue;
        }
        while (glob[index + 1] === '*') index++; // `**` elsewhere is an ordinary `*`
      }
      tokens.push({ kind: 'star' });
    } else if (char === '?') {
      tokens.push({ kind: 'piece', source: '[^/]' });
    } else if (char === '[') {
      const end = classEnd(glob, index);
      if (end === -1) {
        tokens.push({ kind: 'piece', source: '\\[' });
      } else {
        tokens.push({ kind: 'piece', source: classSource(glob.slice(index + 1, end)) });
        index = end;
      }
    } else {
      tokens.push({ kind: 'piece', source: escapeRegex(char) });
    }
  }
  return tokens;
}

/** Wraps regex sources in emulated atomic groups, each with a name of its own. */
function atomicGroupWriter(): (inner: string) => string {
  let count = 0;
  return (inner) => {
    const name = `g${count++}`;
    return `(?=(?<${name}>${inner}))\\k<${name}>`;
  };
}

/** The regex source of whole segments joined by `/` (no whole-segment `**` among the tokens). */
function partSource(tokens: readonly GlobToken[], atomic: (inner: string) => string): string {
  const segments: GlobToken[][] = [[]];
  for (const token of tokens) {
    if (token.kind === 'slash') segments.push([]);
    else segments[segments.length - 1]!.push(token);
  }
  return segments.map((segment) => segmentSource(segment, atomic)).join('/');
}

/**
 * The regex source of one segment: the fixed text before the first `*`, each fixed run between two
 * `*`s at its leftmost fit (committed), and the fixed text after the last `*` against the segment's end.
 */
function segmentSource(tokens: readonly GlobToken[], atomic: (inner: string) => string): string {
  const chunks: string[] = [''];
  for (const token of tokens) {
    if (token.kind === 'star') chunks.push('');
    else if (token.kind === 'piece') chunks[chunks.length - 1] += token.source;
  }
  if (chunks.length === 1) return chunks[0]!;
  const middles = chunks.slice(1, -1).filter((chunk) => chunk !== '');
  return `${chunks[0]!}${middles.map((chunk) => atomic(`[^/]*?${chunk}`)).join('')}[^/]*${chunks[chunks.length - 1]!}`;
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
