// Characters that change how text reads without showing themselves. Untrusted names and values
// (paths, tool names, arguments, errors) can use them to pass as something else: U+202E turns
// "notes\u202Etxt.exe" into "notesexe.txt" on screen. Line feed and tab are kept: they show as layout.
//   C0 and C1 controls, DEL, soft hyphen, Arabic letter mark, Mongolian vowel separator,
//   zero-width space/joiners and LRM/RLM, line/paragraph separators, bidi embeddings and overrides,
//   word joiner and invisible operators, bidi isolates and deprecated format controls, BOM,
//   interlinear annotation controls, and the tag characters that can smuggle text past a reader.
const INVISIBLE_SOURCE =
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB\u{E0000}-\u{E007F}]/u.source;

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
