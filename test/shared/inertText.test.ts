import { describe, expect, it } from 'vitest';
import { inertText, terminalText } from '../../shared/inertText';

describe('inertText', () => {
  it('shows a terminal escape sequence instead of letting a terminal obey it', () => {
    const hostile = '\u001b]0;pwned\u0007\u001b[2J\u001b[31mred\u001b[0m';
    const shown = inertText(hostile);
    expect(shown).toBe('\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31mred\\x1b[0m');
    expect(shown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('keeps tabs, newlines and ordinary text, and shows C1 controls and DEL', () => {
    expect(inertText('a\tb\nc é 😀')).toBe('a\tb\nc é 😀');
    expect(inertText('\u009b31m\u007f\r')).toBe('\\x9b31m\\x7f\\x0d');
  });
});

describe('terminalText', () => {
  it('escapes C0, DEL, C1, line separators and bidi controls as \\uXXXX, keeping tab and newline', () => {
    const hostile = 'a\u001b[31m\u007f\u0085\u009b\u2028\u2029\u202a\u202e\u2066\u2069\u200f\u061c\tb\nc é 😀';
    expect(terminalText(hostile)).toBe('a\\u001b[31m\\u007f\\u0085\\u009b\\u2028\\u2029\\u202a\\u202e\\u2066\\u2069\\u200f\\u061c\tb\nc é 😀');
  });

  it('leaves JSON valid and with the same value', () => {
    const value = { name: 'x\u0085\u202e\u007f\u2028', list: ['\u0000\u001b'] };
    const printed = terminalText(JSON.stringify(value, null, 2));
    expect(printed).not.toMatch(/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(printed)).toEqual(value);
  });
});
