// Characters that change how text reads without showing themselves. Untrusted names and values
// (paths, tool names, arguments, errors) can use them to pass as something else: U+202E turns
// "notes\u202Etxt.exe" into "notesexe.txt" on screen, and a Hangul filler (U+3164) or a braille
// blank (U+2800) reads as a space, or as nothing, inside a name that looks like another.
// The class is taken from Unicode's own properties rather than a hand list, so new members come
// with the engine's Unicode tables:
//   Cc and Cf: C0 and C1 controls, DEL, bidi embeddings, overrides and isolates, zero-width
//     characters, the BOM, invisible operators, interlinear annotation and tag characters;
//   Z and White_Space: every space but the plain one (no-break, en/em/thin/hair spaces, narrow
//     and ideographic spaces, the Ogham space mark), line and paragraph separators;
//   Default_Ignorable_Code_Point: what fonts draw as nothing (Hangul fillers U+115F, U+1160,
//     U+3164, U+FFA0, the combining grapheme joiner, variation selectors, Mongolian free
//     variation selectors);
//   and U+2800 BRAILLE PATTERN BLANK, which is a printable symbol that happens to be empty.
// Plain space, tab and line feed are kept: they show as layout.
const INVISIBLE_SOURCE = /(?![\t\n ])[\p{Cc}\p{Cf}\p{Z}\p{White_Space}\p{Default_Ignorable_Code_Point}\u2800]/u.source;

// A fresh global copy per use: a shared /g regex carries lastIndex from one call into the next
// (matchAll starts there), which would skip the first hidden characters of the next text.
function everyInvisible(): RegExp {
  return new RegExp(INVISIBLE_SOURCE, 'gu');
}

const NAMES: Readonly<Record<number, string>> = {
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE',
  0x00a0: 'NO-BREAK SPACE',
  0x115f: 'HANGUL CHOSEONG FILLER',
  0x1160: 'HANGUL JUNGSEONG FILLER',
  0x3164: 'HANGUL FILLER',
  0xffa0: 'HALFWIDTH HANGUL FILLER',
  0x2800: 'BRAILLE PATTERN BLANK',
  0x2060: 'WORD JOINER',
  0x202f: 'NARROW NO-BREAK SPACE',
  0x205f: 'MEDIUM MATHEMATICAL SPACE',
  0x3000: 'IDEOGRAPHIC SPACE',
  0x180e: 'MONGOLIAN VOWEL SEPARATOR',
  0x034f: 'COMBINING GRAPHEME JOINER',
  0x2000: 'EN QUAD',
  0x2001: 'EM QUAD',
  0x2002: 'EN SPACE',
  0x2003: 'EM SPACE',
  0x2004: 'THREE-PER-EM SPACE',
  0x2005: 'FOUR-PER-EM SPACE',
  0x2006: 'SIX-PER-EM SPACE',
  0x2007: 'FIGURE SPACE',
  0x2008: 'PUNCTUATION SPACE',
  0x2009: 'THIN SPACE',
  0x200a: 'HAIR SPACE',
};

/** A run of ordinary text, or one hidden character shown as its escape. */
export type TextPart =
  | { kind: 'text'; text: string }
  | { kind: 'escape'; text: string; codePoint: number; name: string | undefined };

/** "U+202E", with at least four hex digits. */
export function codePointLabel(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The visible stand-in for a hidden character: ⟨U+202E⟩. */
function escapeInvisible(codePoint: number): string {
  return `\u27E8${codePointLabel(codePoint)}\u27E9`;
}

/** The text cut into ordinary runs and escaped hidden characters, in order (for styled rendering). */
export function splitInvisibles(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let last = 0;
  for (const match of text.matchAll(everyInvisible())) {
    if (match.index > last) parts.push({ kind: 'text', text: text.slice(last, match.index) });
    const codePoint = match[0].codePointAt(0)!;
    parts.push({ kind: 'escape', text: escapeInvisible(codePoint), codePoint, name: NAMES[codePoint] });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ kind: 'text', text: text.slice(last) });
  return parts;
}

/** The text with every hidden character replaced by its escape (for attributes and plain strings). */
export function revealInvisibles(text: string): string {
  return text.replace(everyInvisible(), (char) => escapeInvisible(char.codePointAt(0)!));
}
