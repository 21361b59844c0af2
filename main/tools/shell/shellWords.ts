import { GateError } from '../../../shared/errors';

/**
 * The value bash gives one word as written, for judging what a command does (the preview keeps
 * words as written; this is what they become). Quotes and backslashes are removed, `$'…'` is
 * decoded, and brace expansion (`{rm,-rf,x}` is three words) is applied to unquoted words.
 * Anything bash computes only when it runs (`$x`, `$(…)`, backticks, unquoted globs) marks the word
 * as computed: its value is then only what is known of it.
 */

/** One word as bash would read it. */
export interface WordValue {
  /** The text after quote removal and decoding (expansions kept as written). */
  readonly value: string;
  /** Whether bash computes part of it when the command runs (expansions, substitutions, globs). */
  readonly computed: boolean;
}

/** Escapes of `$'…'` that stand for one character. */
const ANSI_C_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };

/** Decodes the body of a `$'…'` string as bash does. */
export function decodeAnsiC(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (whole, escape: string) => {
    const head = escape[0]!;
    if (head === 'x' || head === 'u' || head === 'U') return String.fromCodePoint(parseInt(escape.slice(1), 16));
    if (/[0-7]/.test(head)) return String.fromCharCode(parseInt(escape, 8) & 0xff);
    if (head === 'c') return String.fromCharCode(escape.charCodeAt(1) & 0x1f);
    return ANSI_C_ESCAPES[escape] ?? whole;
  });
}

/** The value of one word: quotes removed, `$'…'` decoded, expansions kept and marked as computed. */
export function wordValue(text: string): WordValue {
  let value = '';
  let computed = false;
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (char === '\\') {
      value += text[index + 1] ?? '';
      index += 2;
    } else if (char === "'") {
      const end = text.indexOf("'", index + 1);
      value += text.slice(index + 1, end < 0 ? undefined : end);
      index = end < 0 ? text.length : end + 1;
    } else if (char === '$' && text[index + 1] === "'") {
      const end = closingAnsiQuote(text, index + 2);
      value += decodeAnsiC(text.slice(index + 2, end));
      index = end + 1;
    } else if (char === '"' || (char === '$' && text[index + 1] === '"')) {
      const start = char === '$' ? index + 2 : index + 1;
      let at = start;
      for (; at < text.length && text[at] !== '"'; at++) {
        if (text[at] === '\\' && '$`"\\\n'.includes(text[at + 1] ?? '')) value += text[++at];
        else {
          if (text[at] === '$' || text[at] === '`') computed = true;
          value += text[at];
        }
      }
      index = at + 1;
    } else {
      if (char === '$' || char === '`' || char === '*' || char === '?' || char === '[') computed = true;
      value += char;
      index++;
    }
  }
  return { value, computed };
}

/** The index of the quote closing a `$'…'` body that starts at `from` (or the end). */
export function closingAnsiQuote(text: string, from: number): number {
  for (let at = from; at < text.length; at++) {
    if (text[at] === '\\') at++;
    else if (text[at] === "'") return at;
  }
  return text.length;
}

/** The words bash makes of one word as written: brace expansion first (outside quotes and expansions), then quote removal. */
export function expandWord(text: string): WordValue[] {
  if (!text.includes('{')) return [wordValue(text)];
  return expandBraces(text).map((word) => wordValue(word));
}

/**
 * Brace expansion of one word as bash does it: `a{b,c}d` → abd acd, `{1..3}` → 1 2 3, nested lists
 * included; braces and commas in quotes, after a backslash or inside `${…}`, `$(…)` and backquotes
 * are text (`{"r"m,-rf,x}` is rm -rf x, `${x:-a,b}` is one word).
 */
export function expandBraces(text: string, limit = MAX_BRACE_WORDS): string[] {
  const active = braceSyntax(text);
  let braces = 0;
  for (let at = text.indexOf('{'); at >= 0; at = text.indexOf('{', at + 1)) if (active[at]) braces++;
  // Each list is read in a pass over the word: past a few dozen, a long word would take seconds (or
  // overflow the stack) before its words could be counted.
  if (braces > MAX_BRACE_LISTS) {
    throw new GateError('EVALIDATION', `a word of the command holds ${braces} unquoted braces, more than the ${MAX_BRACE_LISTS} a word's brace lists are read for; quote them, or put the command in a script; nothing was run`);
  }
  const words: string[] = [];
  expandInto(text, words, limit);
  return words;
}

/** How many unquoted `{` one word may hold: brace lists past this many are refused, not read. */
export const MAX_BRACE_LISTS = 64;

/**
 * How many words the words of one command line may become by brace expansion, together. Lists
 * multiply (`{a,b}` written 24 times is 16 million words, from 130 characters), so words are
 * counted as they are made, and a line past this many is refused, not judged: nothing is run.
 */
export const MAX_BRACE_WORDS = 1024;

/** Refuses a line whose words (arguments and redirection targets) become more than MAX_BRACE_WORDS words. */
export function checkBraceWords(words: Iterable<string>): void {
  let left = MAX_BRACE_WORDS;
  for (const word of words) if (word.includes('{')) left -= expandBraces(word, left).length;
}

function expandInto(text: string, words: string[], limit: number): void {
  const open = findBraceList(text, braceSyntax(text));
  if (!open) {
    if (words.length >= limit) {
      throw new GateError(
        'EVALIDATION',
        `the command's words become more than ${MAX_BRACE_WORDS} words by brace expansion (each {…,…} multiplies them); write them out, or put the command in a script; nothing was run`,
      );
    }
    words.push(text);
    return;
  }
  const { start, end, parts } = open;
  const head = text.slice(0, start);
  const tail = text.slice(end + 1);
  for (const part of parts) expandInto(`${head}${part}${tail}`, words, limit);
}

/** For each character, whether bash could read it as brace syntax (not quoted, escaped or inside an expansion). */
function braceSyntax(text: string): boolean[] {
  const active = new Array<boolean>(text.length).fill(false);
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!;
    if (char === '\\') at++;
    else if (char === "'") at = endOf(text.indexOf("'", at + 1), text);
    else if (char === '$' && text[at + 1] === "'") at = closingAnsiQuote(text, at + 2);
    else if (char === '"') at = closingDoubleQuote(text, at + 1);
    else if (char === '`') at = closingBackquote(text, at + 1);
    else if (char === '$' && (text[at + 1] === '{' || text[at + 1] === '(')) at = closingBracket(text, at + 1);
    else active[at] = true;
  }
  return active;
}

function endOf(found: number, text: string): number {
  return found < 0 ? text.length : found;
}

function closingDoubleQuote(text: string, from: number): number {
  for (let at = from; at < text.length; at++) {
    if (text[at] === '\\') at++;
    else if (text[at] === '"') return at;
  }
  return text.length;
}

/** The index of the backquote closing a command substitution whose body starts at `from` (or the end). */
export function closingBackquote(text: string, from: number): number {
  for (let at = from; at < text.length; at++) {
    if (text[at] === '\\') at++;
    else if (text[at] === '`') return at;
  }
  return text.length;
}

/** The index of the bracket closing the one at `from` (quotes inside skipped), or the end. */
export function closingBracket(text: string, from: number): number {
  const pairs: Record<string, string> = { '{': '}', '(': ')' };
  const stack = [pairs[text[from]!]!];
  for (let at = from + 1; at < text.length; at++) {
    const char = text[at]!;
    if (char === '\\') at++;
    else if (char === "'") at = endOf(text.indexOf("'", at + 1), text);
    else if (char === '"') at = closingDoubleQuote(text, at + 1);
    else if (char === '`') at = closingBackquote(text, at + 1);
    else if (char in pairs) stack.push(pairs[char]!);
    else if (char === stack.at(-1) && (stack.pop(), stack.length === 0)) return at;
  }
  return text.length;
}

function findBraceList(text: string, active: readonly boolean[]): { start: number; end: number; parts: string[] } | undefined {
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    if (!active[start]) continue;
    let depth = 0;
    const commas: number[] = [];
    for (let at = start; at < text.length; at++) {
      if (!active[at]) continue;
      if (text[at] === '{') depth++;
      else if (text[at] === '}' && --depth === 0) {
        const inner = text.slice(start + 1, at);
        if (commas.length > 0) {
          const cuts = [start, ...commas, at];
          return { start, end: at, parts: cuts.slice(1).map((cut, index) => text.slice(cuts[index]! + 1, cut)) };
        }
        const range = /^(?:(-?\d+)\.\.(-?\d+)|([a-zA-Z])\.\.([a-zA-Z]))(?:\.\.(-?\d+))?$/.exec(inner);
        if (range) return { start, end: at, parts: sequence(range[1] ?? range[3]!, range[2] ?? range[4]!, range[5]) };
        break;
      } else if (text[at] === ',' && depth === 1) commas.push(at);
    }
  }
  return undefined;
}

/**
 * A range as bash makes it: `{1..10..3}` steps (the step's sign is ignored, 0 is 1), and a number
 * written with a leading zero (`{01..10}`, `{-02..2}`) pads every word to the wider end's width.
 */
function sequence(from: string, to: string, step?: string): string[] {
  const numeric = /\d/.test(from);
  const first = numeric ? Number(from) : from.charCodeAt(0);
  const last = numeric ? Number(to) : to.charCodeAt(0);
  const stride = (first <= last ? 1 : -1) * Math.max(1, Math.abs(Number(step ?? 1)));
  const width = numeric && (/^-?0\d/.test(from) || /^-?0\d/.test(to)) ? Math.max(from.length, to.length) : 0;
  const shown = (at: number) => (numeric ? (at < 0 ? `-${String(-at).padStart(width - 1, '0')}` : String(at).padStart(width, '0')) : String.fromCharCode(at));
  const out: string[] = [];
  // Every word of the range is judged (a deny names one of them). One past the words a line may
  // become is enough to refuse it (each value is at least one word), so a huge range costs no more.
  for (let at = first; out.length <= MAX_BRACE_WORDS && (stride > 0 ? at <= last : at >= last); at += stride) out.push(shown(at));
  return out;
}

/** Whether a word as written is a variable assignment (`NAME=…`, `NAME+=…`, `NAME[i]=…`). */
export function isAssignment(text: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(text);
}
