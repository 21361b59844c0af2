import unhomoglyph from 'unhomoglyph';

/**
 * Look-alike letters (homoglyphs): "Іgnore" with a Cyrillic І reads as "Ignore" to a person and to
 * the model, but no check written for Latin letters sees it. The confusables data is Unicode's own
 * (confusables.txt of UTS #39, as the unhomoglyph package ships it); the scripts come from the
 * JavaScript engine's Unicode property escapes.
 */

/** The UTS #39 skeleton of a text: NFD, each character replaced by its confusables.txt prototype, NFD again. */
export function skeleton(text: string): string {
  return unhomoglyph(text.normalize('NFD')).normalize('NFD');
}

const ASCII_LETTERS = /^[A-Za-z]+$/;
const latinLookalikes = new Map<string, string | undefined>();

/**
 * The ASCII letters a non-ASCII character is confusable with, in its own case (Cyrillic і and І
 * read as i and I), or undefined when it looks like no Latin letter.
 */
export function latinLookalike(char: string): string | undefined {
  if (!/[^\x00-\x7f]/.test(char)) return undefined;
  if (latinLookalikes.has(char)) return latinLookalikes.get(char);
  const lower = char.toLowerCase();
  const prototype = skeleton(lower);
  const found = ASCII_LETTERS.test(prototype) ? (lower === char ? prototype : prototype.toUpperCase()) : undefined;
  latinLookalikes.set(char, found);
  return found;
}

/** Text with every look-alike of a Latin letter replaced by that letter: what a reader takes it for. */
export function asLatin(text: string): string {
  let read = '';
  for (const char of text) read += /[^\x00-\x7f]/.test(char) ? (latinLookalike(char) ?? char) : char;
  return read;
}

/** The scripts told apart, checked in this order; any other letter counts as `another script`. */
const SCRIPTS = [
  'Latin', 'Cyrillic', 'Greek', 'Armenian', 'Georgian', 'Hebrew', 'Arabic', 'Syriac', 'Thaana', 'Nko', 'Devanagari', 'Bengali',
  'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala', 'Thai', 'Lao', 'Tibetan', 'Myanmar',
  'Khmer', 'Mongolian', 'Ethiopic', 'Cherokee', 'Canadian_Aboriginal', 'Han', 'Hiragana', 'Katakana', 'Bopomofo', 'Hangul',
  'Yi', 'Lisu', 'Vai', 'Coptic', 'Tifinagh', 'Glagolitic', 'Runic', 'Ogham', 'Gothic', 'Deseret', 'Osage', 'Adlam',
] as const;
const SCRIPT_PATTERNS = SCRIPTS.map((script) => [script, new RegExp(`^\\p{Script=${script}}$`, 'u')] as const);
const NO_SCRIPT = /^[\p{Script=Common}\p{Script=Inherited}]$/u;
const scriptCache = new Map<string, string | undefined>();

/** The script of a letter (`Latin`, `Cyrillic`, `Han`…), or undefined for one of no script of its own (digits, marks, punctuation). */
export function scriptOf(char: string): string | undefined {
  const code = char.charCodeAt(0);
  if (code < 0x80) return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) ? 'Latin' : undefined;
  if (scriptCache.has(char)) return scriptCache.get(char);
  const script = NO_SCRIPT.test(char) || !/^\p{L}$/u.test(char) ? undefined : (SCRIPT_PATTERNS.find(([, pattern]) => pattern.test(char))?.[0] ?? 'another script');
  scriptCache.set(char, script);
  return script;
}

/**
 * Script sets one word may mix, as UTS #39 allows at its "highly restrictive" level: Japanese
 * (Latin, Han, Hiragana, Katakana), Chinese with Bopomofo, Korean with Han. Any other mix (Latin
 * with Cyrillic or Greek) is how a look-alike is slipped into a word.
 */
const ALLOWED_MIXES: readonly ReadonlySet<string>[] = [
  new Set(['Latin', 'Han', 'Hiragana', 'Katakana']),
  new Set(['Latin', 'Han', 'Bopomofo']),
  new Set(['Latin', 'Han', 'Hangul']),
];

/** A word spelled with look-alikes, where it is, and what it reads as. */
export interface HomoglyphWord {
  start: number;
  end: number;
  word: string;
  readsAs: string;
  /** The scripts its letters come from, in order of first use. */
  scripts: string[];
}

/** A letter or mark beyond ASCII: where a word worth looking at is. */
const NON_ASCII_LETTER = /(?=[^\x00-\x7f])[\p{L}\p{M}]/gu;
const LETTER = /[\p{L}\p{M}]/u;

/** The word (letters and marks) around `index`. */
function wordAround(text: string, index: number): { start: number; end: number } {
  let start = index;
  while (start > 0 && LETTER.test(characterAt(text, start - 1, -1))) start -= characterAt(text, start - 1, -1).length;
  let end = index;
  while (end < text.length && LETTER.test(characterAt(text, end, 1))) end += characterAt(text, end, 1).length;
  return { start, end };
}

/** The character ending just before (direction -1) or starting at (1) an index, a surrogate pair whole. */
function characterAt(text: string, index: number, direction: 1 | -1): string {
  const code = text.charCodeAt(index);
  if (direction === -1 && code >= 0xdc00 && code <= 0xdfff && index > 0) return text.slice(index - 1, index + 1);
  if (direction === 1 && code >= 0xd800 && code <= 0xdbff) return text.slice(index, index + 2);
  return text[index]!;
}

/**
 * The words of a text spelled with look-alike letters: a word mixing scripts in a way UTS #39 does
 * not allow ("prevіous", Latin with a Cyrillic і), or, where the text around is mostly Latin
 * (`surrounding`), a word of 3 or more letters of another script that reads as Latin letters only
 * ("рау"). Words of a text written in that other script are its own words, never flagged.
 */
export function homoglyphWords(text: string, surrounding: string | undefined): HomoglyphWord[] {
  // Printable ASCII holds no look-alike: the common case costs one test.
  if (!/[^\x00-\x7f]/.test(text)) return [];
  const found: HomoglyphWord[] = [];
  let checkedTo = 0;
  // Only words holding a letter beyond ASCII are looked at: an English text's words cost nothing.
  for (const letter of text.matchAll(NON_ASCII_LETTER)) {
    if (letter.index < checkedTo) continue;
    const { start, end } = wordAround(text, letter.index);
    checkedTo = end;
    const word = text.slice(start, end);
    const scripts: string[] = [];
    for (const char of word) {
      const script = scriptOf(char);
      if (script && !scripts.includes(script)) scripts.push(script);
    }
    const mixed = scripts.length > 1 && !ALLOWED_MIXES.some((allowed) => scripts.every((script) => allowed.has(script)));
    const readsAs = asLatin(word);
    const disguisedLatin = surrounding === 'Latin' && scripts.length === 1 && scripts[0] !== 'Latin' && [...word].length >= 3 && ASCII_LETTERS.test(readsAs);
    if (mixed || disguisedLatin) found.push({ start, end, word, readsAs, scripts });
  }
  return found;
}
