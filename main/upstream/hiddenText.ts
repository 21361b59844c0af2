import { asLatin } from './confusables';

/**
 * Characters a model reads and a person does not see, in text an upstream server wrote: how they are
 * found, shown (as `\u{…}`), and taken out before phrases are matched, so that an order split by a
 * zero-width space or spelled in tag characters is still read as the model would read it.
 */

/** Every character shown escaped: the hidden ones below, plus carriage returns and line separators a terminal acts on. */
const SHOWN_ESCAPED =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\p{Cf}\p{Co}\p{Cs}\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/gu;

/** Text with every hidden or control character (but newline and tab) shown as its `\u{XXXX}` escape. */
export function visibleText(text: string): string {
  return text.replace(SHOWN_ESCAPED, (char) => `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`);
}

const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
/** Zero-width characters and blank fillers that render as nothing. */
const ZERO_WIDTH = /[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200d\u2060-\u2064\u3164\ufeff\uffa0]/u;
/** C0 controls but tab, newline and carriage return (line ends a server may write), DEL and C1. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u;
const VARIATION_SELECTOR = /[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/u;

/** The tag block (U+E0000–E007F): invisible copies of ASCII, the way text is smuggled past a reader. */
function isTag(codePoint: number): boolean {
  return codePoint >= 0xe0000 && codePoint <= 0xe007f;
}

/**
 * What kind of hidden character this is, or undefined for one a reader sees. A single variation
 * selector after a visible character is how an emoji picks its look (⚠️); a run of them, or one from
 * the supplement (U+E0100–E01EF), encodes bytes nobody sees.
 */
function hiddenKind(char: string, previous: string | undefined): string | undefined {
  const codePoint = char.codePointAt(0)!;
  if (isTag(codePoint)) return 'tag characters';
  if (BIDI_CONTROLS.test(char)) return 'bidirectional controls';
  if (ZERO_WIDTH.test(char)) return 'zero-width characters';
  if (VARIATION_SELECTOR.test(char)) {
    return codePoint >= 0xe0100 || (previous !== undefined && VARIATION_SELECTOR.test(previous)) ? 'variation selectors' : undefined;
  }
  if (CONTROL.test(char)) return 'control characters';
  if (/\p{Co}/u.test(char)) return 'private-use characters';
  if (/\p{Cf}/u.test(char)) return 'invisible format characters';
  return undefined;
}

/** The hidden characters of a text: where the first is, and words for the person. */
export interface HiddenCharacters {
  /** Index of the first one in the text. */
  first: number;
  message: string;
}

/** Every character hiddenKind may count as hidden: a text holding none of them (most text) is passed over in one test. */
const MAYBE_HIDDEN =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\u3164\ufe00-\ufe0f\ufeff\uffa0\p{Cf}\p{Co}\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/u;

/** Whether a code point is printable ASCII, a tab or a line end: never hidden, and its own normal form. */
function isPlainAscii(codePoint: number): boolean {
  return (codePoint >= 0x20 && codePoint < 0x7f) || codePoint === 0x09 || codePoint === 0x0a || codePoint === 0x0d;
}

/** The same characters, all of them in a text. */
const MAYBE_HIDDEN_ALL = new RegExp(MAYBE_HIDDEN.source, 'gu');

/** The character before `index` of a text (a surrogate pair whole), or undefined at its start. */
function characterBefore(text: string, index: number): string | undefined {
  if (index === 0) return undefined;
  const code = text.charCodeAt(index - 1);
  return code >= 0xdc00 && code <= 0xdfff && index > 1 ? text.slice(index - 2, index) : text[index - 1];
}

/** The hidden characters of a text, or undefined when it has none; only the candidates are looked at, so long text costs little. */
export function hiddenCharacters(text: string): HiddenCharacters | undefined {
  if (!MAYBE_HIDDEN.test(text)) return undefined;
  let first: number | undefined;
  let count = 0;
  const kinds = new Set<string>();
  let spelled = '';
  for (const match of text.matchAll(MAYBE_HIDDEN_ALL)) {
    const char = match[0];
    const kind = hiddenKind(char, characterBefore(text, match.index));
    if (!kind) continue;
    first ??= match.index;
    count++;
    kinds.add(kind);
    const ascii = char.codePointAt(0)! - 0xe0000;
    if (kind === 'tag characters' && ascii >= 0x20 && ascii < 0x7f) spelled += String.fromCharCode(ascii);
  }
  if (first === undefined) return undefined;
  const spelling = spelled ? `; its tag characters spell "${visibleText(spelled.slice(0, 120))}${spelled.length > 120 ? '…' : ''}"` : '';
  return {
    first,
    message: `holds ${count} invisible character${count === 1 ? '' : 's'} (${[...kinds].join(', ')}): the model reads them, a person reading the text does not see them${spelling}`,
  };
}

/** Text prepared for phrase matching, with the way back to the original's positions. */
export interface NormalizedText {
  /** NFKC, lower case, look-alikes read as the Latin letters they mimic, white space collapsed to single spaces, hidden characters out, tag characters read as the ASCII they copy. */
  text: string;
  /** The range of the original text that [start, end) of the normalized text came from. */
  originalRange(start: number, end: number): { start: number; end: number };
}

/** Curly apostrophes and primes a phrase list written with ' would miss ("don’t tell the user"). */
const APOSTROPHES = /[\u2018\u2019\u02bc\u2032]/g;
/** Runs of characters that are not printable ASCII, tabs or line ends: the only ones normalizing looks at one by one. */
const NOT_PLAIN = /[^\x20-\x7e\t\n\r]+/gu;

/**
 * The text as phrases are matched against it: what a model reads once the disguise is gone. Plain
 * ASCII (most of any text) is only lower-cased, the rest normalized a character at a time, spaces
 * collapsed at the end; the map back to the original's positions is built only when asked for.
 */
export function normalizedForMatching(original: string): NormalizedText {
  const parts: string[] = [];
  let inTags = false;
  let from = 0;
  const plain = (to: number) => {
    if (to <= from) return;
    parts.push(`${inTags ? ' ' : ''}${original.slice(from, to).toLowerCase()}`);
    inTags = false;
  };
  for (const run of original.matchAll(NOT_PLAIN)) {
    plain(run.index);
    for (const char of run[0]) {
      const normalized = normalizedPiece(char, inTags);
      parts.push(normalized.piece);
      inTags = normalized.inTags;
    }
    from = run.index + run[0].length;
  }
  plain(original.length);
  let mapped: NormalizedText | undefined;
  return {
    text: parts.join('').replace(/\s+/g, ' ').replace(/^ /, ''),
    originalRange: (start, end) => (mapped ??= normalizedWithMap(original)).originalRange(start, end),
  };
}

/**
 * What one character that is not plain ASCII adds to normalized text (spaces not yet collapsed):
 * a hidden one nothing, a tag character the ASCII it copies (a run of them set apart by spaces),
 * any other its NFKC form, lower-cased, look-alikes read as the Latin letters they mimic.
 */
function normalizedPiece(char: string, inTags: boolean): { piece: string; inTags: boolean } {
  const codePoint = char.codePointAt(0)!;
  if (isTag(codePoint)) {
    const ascii = codePoint - 0xe0000;
    const copied = ascii >= 0x20 && ascii < 0x7f ? String.fromCharCode(ascii).toLowerCase() : '';
    return { piece: `${inTags ? '' : ' '}${copied}`, inTags: true };
  }
  // A variation selector is dropped whether or not it hides anything: it changes a look, never a word.
  if (VARIATION_SELECTOR.test(char) || hiddenKind(char, undefined)) return { piece: '', inTags };
  return { piece: `${inTags ? ' ' : ''}${asLatin(char.normalize('NFKC').toLowerCase().replace(APOSTROPHES, "'")).toLowerCase()}`, inTags: false };
}

/** The normalized text built a character at a time, each of its positions mapped to the original's. */
function normalizedWithMap(original: string): NormalizedText {
  // Pieces joined at the end, and the last one remembered: asking a growing string how it ends flattens it each time.
  const pieces: string[] = [];
  let last = '';
  const origin: number[] = [];
  const emit = (piece: string, at: number) => {
    for (const char of piece) {
      const code = char.charCodeAt(0);
      const space = code < 0x80 ? code === 0x20 || (code >= 0x09 && code <= 0x0d) : /\s/u.test(char);
      const out = space ? (last === '' || last === ' ' ? '' : ' ') : char;
      if (out === '') continue;
      pieces.push(out);
      last = out;
      for (let unit = 0; unit < out.length; unit++) origin.push(at);
    }
  };
  let inTags = false;
  let index = 0;
  for (const char of original) {
    if (isPlainAscii(char.charCodeAt(0))) {
      emit(`${inTags ? ' ' : ''}${char.toLowerCase()}`, index);
      inTags = false;
    } else {
      const normalized = normalizedPiece(char, inTags);
      emit(normalized.piece, index);
      inTags = normalized.inTags;
    }
    index += char.length;
  }
  return {
    text: pieces.join(''),
    originalRange(start, end) {
      if (start >= origin.length) return { start: original.length, end: original.length };
      const last = origin[Math.max(start, end - 1)]!;
      return { start: origin[start]!, end: last + (original.codePointAt(last)! > 0xffff ? 2 : 1) };
    },
  };
}
