import { describe, expect, it } from 'vitest';
import { revealInvisibles, splitInvisibles } from '../../renderer/format/invisibles';

describe('revealInvisibles', () => {
  it('shows a right-to-left override instead of letting it reverse the name', () => {
    expect(revealInvisibles('notes\u202Etxt.exe')).toBe('notes\u27E8U+202E\u27E9txt.exe');
  });

  it('escapes bidi controls, zero-width and separator characters, the BOM and C0/C1 controls', () => {
    const hidden = [
      0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
      0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x2028, 0x2029, 0xfeff,
      0x00, 0x07, 0x0b, 0x0c, 0x0d, 0x1b, 0x7f, 0x85, 0x9f, 0xe0041,
    ];
    for (const codePoint of hidden) {
      const label = codePoint.toString(16).toUpperCase().padStart(4, '0');
      expect(revealInvisibles(`a${String.fromCodePoint(codePoint)}b`)).toBe(`a\u27E8U+${label}\u27E9b`);
    }
  });

  it('escapes fillers and spaces that render blank: Hangul fillers, braille blank, no-break and typographic spaces', () => {
    const blank = [
      0x3164, 0x2800, 0x115f, 0x1160, 0xffa0, 0x00a0, 0x1680, 0x180e, 0x202f, 0x205f, 0x3000, 0x034f, 0x17b4,
      0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0x2065, 0x180b, 0xfe00, 0xe0100,
      ...Array.from({ length: 11 }, (_, i) => 0x2000 + i),
    ];
    for (const codePoint of blank) {
      const label = codePoint.toString(16).toUpperCase().padStart(4, '0');
      expect(revealInvisibles(`a${String.fromCodePoint(codePoint)}b`), label).toBe(`a\u27E8U+${label}\u27E9b`);
    }
    expect(splitInvisibles('x\u3164')[1]).toMatchObject({ kind: 'escape', codePoint: 0x3164, name: 'HANGUL FILLER' });
    expect(splitInvisibles('x\u2800')[1]).toMatchObject({ kind: 'escape', codePoint: 0x2800, name: 'BRAILLE PATTERN BLANK' });
  });

  it('keeps line feeds, tabs and ordinary non-ASCII text', () => {
    const text = 'line one\n\tindented — café, 日本語, emoji 🙂, עברית, ⠁⠃ braille, 한글';
    expect(revealInvisibles(text)).toBe(text);
  });
});

describe('splitInvisibles', () => {
  it('cuts text into ordinary runs and escapes, in order, naming the bidi controls', () => {
    expect(splitInvisibles('a\u202E\u2066b')).toEqual([
      { kind: 'text', text: 'a' },
      { kind: 'escape', text: '\u27E8U+202E\u27E9', codePoint: 0x202e, name: 'RIGHT-TO-LEFT OVERRIDE' },
      { kind: 'escape', text: '\u27E8U+2066\u27E9', codePoint: 0x2066, name: 'LEFT-TO-RIGHT ISOLATE' },
      { kind: 'text', text: 'b' },
    ]);
    expect(splitInvisibles('plain')).toEqual([{ kind: 'text', text: 'plain' }]);
    expect(splitInvisibles('')).toEqual([]);
  });

  it('finds a hidden character at the start of a text right after splitting another text', () => {
    for (const text of ['abc\u200Bdef', '\u202Eab', 'x\u2067y\u2069', '\u202Eab']) {
      expect(splitInvisibles(text).map((part) => part.text).join('')).toBe(revealInvisibles(text));
    }
    expect(splitInvisibles('\u202Eab')[0]).toMatchObject({ kind: 'escape', codePoint: 0x202e });
  });
});
