import { closingAnsiQuote, closingBackquote, closingBracket, decodeAnsiC, expandBraces } from './shellWords';

/**
 * What a word can become when bash runs it, for rules that must not be dodged by it. A word as
 * written is a run of pieces: literal text (after quote removal and `$'…'` decoding), glob
 * characters (`*`, `?`, `[…]`, an extglob's `(`), and parts bash fills in at run time (`$x`,
 * `${x:-y}`, `$(…)`, backquotes, `$((…))`, a leading `~`). Its shape says which words it may turn into:
 * - literal: exactly its text;
 * - one: one word matching `test` (a quoted expansion `"$x"`, a tilde: no splitting, no globbing);
 * - many: one or more words each matching `test` (a glob, one word per file it matches);
 * - any: any number of words of any text (an unquoted expansion: word splitting by `IFS`, then
 *   globbing; and `"$@"`, `"${a[@]}"`, one word per element).
 * Brace expansion (`{a,b}`, `{1..3}`) is done first, as bash does, so a braced word is several shapes.
 * Tests over-approximate (a `[…]` class reads as any run of characters): a shape may match more
 * than bash would produce, never less.
 */
export interface WordShape {
  /** The word as written (after brace expansion). */
  readonly written: string;
  /** Its value when bash decides nothing at run time. */
  readonly literal?: string;
  /** How many words it may become. */
  readonly count: 'literal' | 'one' | 'many' | 'any';
  /** Whether one word it becomes could be this text. */
  readonly test: (word: string) => boolean;
  /** Whether the last path segment of one word it becomes could be this text (`/bin/r?` could run rm). */
  readonly baseTest: (name: string) => boolean;
  /**
   * Whether a word it becomes could be read as options: `-` then only letters, digits and `-` (a
   * program's getopt refuses a word with any other character before it runs: `*.log` cannot be `-rf`).
   */
  readonly mayBeOption: boolean;
}

/** A piece of a word: literal text, a glob character, or text only known at run time. */
type Piece = { kind: 'text'; text: string } | { kind: 'glob'; source: string } | { kind: 'runtime'; split: boolean; tilde?: boolean };

/** Any text at all. */
export const ANY_TEXT = (): boolean => true;

/** The shapes of one word as written (several when it holds a brace list). */
export function wordShapes(written: string): WordShape[] {
  return (written.includes('{') ? expandBraces(written) : [written]).map(shapeOf);
}

function shapeOf(written: string): WordShape {
  const pieces = piecesOf(written);
  const runtime = pieces.filter((piece) => piece.kind === 'runtime');
  if (runtime.some((piece) => piece.kind === 'runtime' && piece.split)) return { written, count: 'any', test: ANY_TEXT, baseTest: ANY_TEXT, mayBeOption: true };
  const isLiteral = pieces.every((piece) => piece.kind === 'text');
  if (isLiteral) {
    const literal = pieces.map((piece) => (piece.kind === 'text' ? piece.text : '')).join('');
    const base = literal.slice(literal.lastIndexOf('/') + 1);
    return { written, literal, count: 'literal', test: (word) => word === literal, baseTest: (name) => name === base, mayBeOption: literal.startsWith('-') };
  }
  const count = pieces.some((piece) => piece.kind === 'glob') ? 'many' : 'one';
  const mayBeOption = mayBeOptionWord(pieces);
  const test = new RegExp(`^${render(pieces)}$`);
  const baseTest = new RegExp(`^${render(baseNamePieces(pieces))}$`);
  return { written, count, test: (word) => test.test(word), baseTest: (name) => baseTest.test(name), mayBeOption };
}

/** Whether some word the pieces can make is `-` followed by option characters only. */
function mayBeOptionWord(pieces: readonly Piece[]): boolean {
  const [first, ...rest] = pieces.flatMap((piece): (string | Piece)[] => (piece.kind === 'text' ? [...piece.text] : [piece]));
  if (first === undefined || (typeof first === 'string' ? first !== '-' : first.kind === 'runtime' && first.tilde)) return false;
  return rest.every((part) => typeof part !== 'string' || /^[A-Za-z0-9-]$/.test(part));
}

/** The pieces that make up the last path segment: after the last literal `/`, or after the last run-time part (which may hold a `/`). */
function baseNamePieces(pieces: readonly Piece[]): Piece[] {
  for (let at = pieces.length - 1; at >= 0; at--) {
    const piece = pieces[at]!;
    if (piece.kind === 'runtime') return [{ kind: 'glob', source: '[\\s\\S]*' }, ...pieces.slice(at + 1)];
    if (piece.kind === 'text' && piece.text.includes('/')) return [{ kind: 'text', text: piece.text.slice(piece.text.lastIndexOf('/') + 1) }, ...pieces.slice(at + 1)];
  }
  return [...pieces];
}

function render(pieces: readonly Piece[]): string {
  return pieces.map((piece) => (piece.kind === 'text' ? escapeRegExp(piece.text) : piece.kind === 'glob' ? piece.source : '[\\s\\S]*')).join('');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Splits a word as written into pieces, quotes removed. */
function piecesOf(text: string): Piece[] {
  const pieces: Piece[] = [];
  let literal = '';
  const flush = () => {
    if (literal !== '') pieces.push({ kind: 'text', text: literal });
    literal = '';
  };
  const push = (piece: Piece) => {
    flush();
    pieces.push(piece);
  };
  let index = 0;
  if (text.startsWith('~')) {
    // A leading tilde (to the first /) is a home folder bash looks up when it runs.
    const slash = text.indexOf('/');
    push({ kind: 'runtime', split: false, tilde: true });
    index = slash < 0 ? text.length : slash;
  }
  while (index < text.length) {
    const char = text[index]!;
    if (char === '\\') {
      literal += text[index + 1] ?? '';
      index += 2;
    } else if (char === "'") {
      const end = text.indexOf("'", index + 1);
      literal += text.slice(index + 1, end < 0 ? undefined : end);
      index = end < 0 ? text.length : end + 1;
    } else if (char === '$' && text[index + 1] === "'") {
      const end = closingAnsiQuote(text, index + 2);
      literal += decodeAnsiC(text.slice(index + 2, end));
      index = end + 1;
    } else if (char === '"' || (char === '$' && text[index + 1] === '"')) {
      index = doubleQuoted(text, char === '$' ? index + 2 : index + 1, (part) => (typeof part === 'string' ? (literal += part) : push(part)));
    } else if (char === '$' || char === '`') {
      // An unquoted expansion is split into words and globbed: nothing after it is known either.
      push({ kind: 'runtime', split: true });
      break;
    } else if (char === '[' && text.indexOf(']', index + 2) > 0) {
      // A bracket expression is one character (`[]…]` keeps its first `]`); one with quotes or
      // expansions inside is not read further: the rest of the word may be anything.
      const close = text.indexOf(']', index + 2);
      const plain = !/['"\\$`]/.test(text.slice(index + 1, close));
      push({ kind: 'glob', source: plain ? '[\\s\\S]' : '[\\s\\S]*' });
      index = plain ? close + 1 : text.length;
    } else if (char === '*' || char === '[' || char === '(') {
      push({ kind: 'glob', source: '[\\s\\S]*' });
      index++;
    } else if (char === '?') {
      push({ kind: 'glob', source: '[\\s\\S]' });
      index++;
    } else {
      literal += char;
      index++;
    }
  }
  flush();
  return pieces;
}

/** Reads a double-quoted part from `from`; returns the index after its closing quote. */
function doubleQuoted(text: string, from: number, emit: (part: string | Piece) => void): number {
  for (let at = from; at < text.length; at++) {
    const char = text[at]!;
    if (char === '"') return at + 1;
    if (char === '\\' && at + 1 < text.length) {
      at++;
      emit('$`"\\\n'.includes(text[at]!) ? text[at]! : `\\${text[at]}`);
    } else if (char === '`') {
      emit({ kind: 'runtime', split: false });
      at = closingBackquote(text, at + 1);
    } else if (char === '$' && /^[{(A-Za-z_0-9@*#?$!-]/.test(text[at + 1] ?? '')) {
      // "$@", "${a[@]}" and "${!p@}" are one word per element, even in quotes.
      emit({ kind: 'runtime', split: /^\$(@|\{[^}]*@)/.test(text.slice(at)) });
      at = endOfExpansion(text, at);
    } else emit(char);
  }
  return text.length;
}

/** The index of the last character of the expansion that starts with the `$` at `at`. */
function endOfExpansion(text: string, at: number): number {
  const next = text[at + 1]!;
  if (next === '{' || next === '(') return closingBracket(text, at + 1);
  const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(at + 1));
  // A name, or one digit or special character ($1, $?, $@).
  return name ? at + name[0].length : at + 1;
}
