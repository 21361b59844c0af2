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

  it('keeps line feeds, tabs and ordinary non-ASCII text', () => {
    const text = 'line one\n\tindented — café, 日本語, emoji 🙂, עברית';
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
