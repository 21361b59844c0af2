import { describe, expect, it } from 'vitest';
import { TerminalText } from '../../renderer/format/terminalText';

const ESC = '\u001b';

/** What the Live terminal is given for output that arrives in these pieces. */
function shown(...pieces: string[]): string {
  const text = new TerminalText();
  return pieces.map((piece) => text.push(piece)).join('');
}

/** Every ESC in the shown text starts an SGR sequence: the only escapes the terminal ever receives. */
function onlySgr(text: string): boolean {
  return [...text.matchAll(/\u001b/g)].every((match) => /^\u001b\[[0-9;:]*m/.test(text.slice(match.index)));
}

describe('TerminalText', () => {
  it('keeps colours: 16, 256 and true colour, bold, underline and reset', () => {
    const coloured = `${ESC}[31mred${ESC}[0m ${ESC}[1;38;5;208morange${ESC}[m ${ESC}[48;2;10;20;30;4mdeep${ESC}[38:2::1:2:3mcolon${ESC}[0m\r\n`;
    expect(shown(coloured)).toBe(coloured);
  });

  it('drops conceal (SGR 8, written any way) and keeps the rest of the sequence', () => {
    expect(shown(`${ESC}[8msecret${ESC}[0m`)).toBe(`secret${ESC}[0m`);
    expect(shown(`${ESC}[31;08;1mx`)).toBe(`${ESC}[31;1mx`);
    // An 8 that is a colour's argument is not conceal.
    expect(shown(`${ESC}[38;5;8mgrey`)).toBe(`${ESC}[38;5;8mgrey`);
  });

  it('drops screen clears, cursor moves, scroll regions, the alternate screen and resets, so earlier lines stay', () => {
    const hostile = [
      'rm -rf ~\r\n',
      `${ESC}[2J${ESC}[3J${ESC}[H${ESC}[1A${ESC}[2K${ESC}[10;1H${ESC}[1;5r${ESC}[?1049h${ESC}[?25l${ESC}7${ESC}8${ESC}c${ESC}M${ESC}D${ESC}[5S${ESC}[2T`,
      'echo hello\r\n',
    ].join('');
    expect(shown(hostile)).toBe('rm -rf ~\r\necho hello\r\n');
  });

  it('drops OSC (title, hyperlink, clipboard), DCS, SOS, PM and APC strings with their contents', () => {
    const hostile = [
      `a${ESC}]0;fake title\u0007`,
      `b${ESC}]8;;https://evil.example${ESC}\\link${ESC}]8;;${ESC}\\`,
      `c${ESC}]52;c;cm0gLXJmIH4=\u0007`,
      `d${ESC}Pq#0;2;0;0;0${ESC}\\`,
      `e${ESC}Xsos${ESC}\\f${ESC}^pm${ESC}\\g${ESC}_apc${ESC}\\h`,
    ].join('');
    expect(shown(hostile)).toBe('ablinkcdefgh');
  });

  it('shows a carriage return that does not end a line as a new line, so nothing is drawn over', () => {
    expect(shown('rm -rf ~\recho hello\n')).toBe('rm -rf ~\r\necho hello\r\n');
    expect(shown('10%\r20%\r100%\r\n')).toBe('10%\r\n20%\r\n100%\r\n');
    // CR LF split across two pieces is still one line end.
    expect(shown('line\r', '\nnext\n')).toBe('line\r\nnext\r\n');
  });

  it('shows backspaces, stray control characters, 8-bit C1 sequences and blank fillers as escapes', () => {
    expect(shown('rm -rf ~\b\b\b\b\b\b\b\bls      ')).toBe('rm -rf ~' + '\u27E8U+0008\u27E9'.repeat(8) + 'ls      ');
    expect(shown('a\u009b2Jb\u009d0;t\u0007c')).toBe('a\u27E8U+009B\u27E92Jb\u27E8U+009D\u27E90;t\u27E8U+0007\u27E9c');
    expect(shown(`x${ESC}\u00e9y`)).toBe('x\u27E8U+001B\u27E9\u00e9y');
    expect(shown('hid\u3164den\u2800\u00a0')).toBe('hid\u27E8U+3164\u27E9den\u27E8U+2800\u27E9\u27E8U+00A0\u27E9');
    expect(shown('\tindented')).toBe('\tindented');
  });

  it('holds a sequence cut between two pieces until its end arrives', () => {
    expect(shown(`keep${ESC}[3`, '1mred', `${ESC}[2`, 'Jstill')).toBe(`keep${ESC}[31mredstill`);
    expect(shown(`a${ESC}]0;ti`, 'tle\u0007b')).toBe('ab');
    expect(shown(`a${ESC}`, '[2Jb')).toBe('ab');
  });

  it('never lets an escape other than SGR through, whatever the pieces', () => {
    const nasty = `${ESC}[${ESC}[2J${ESC}]${ESC}[H${ESC}P${ESC}[1A${ESC}[2\bJ${ESC}[?1049h${ESC}(0${ESC}[31;8m\u009b2J${ESC}`;
    for (let cut = 0; cut <= nasty.length; cut++) {
      expect(onlySgr(shown(nasty.slice(0, cut), nasty.slice(cut))), `cut at ${cut}`).toBe(true);
    }
  });

  it('stays linear on output made of unfinished sequences: ten times as much takes about ten times as long', () => {
    /** Output made of `count` of each unfinished sequence. */
    const unfinished = (count: number) => [`${ESC}P`.repeat(count), `${ESC}]`.repeat(count), `${ESC}[`.repeat(count), '\nend'];
    const showing = (count: number) => {
      const began = performance.now();
      shown(...unfinished(count));
      return performance.now() - began;
    };
    // Small and large showings take turns, and the fastest of each counts: a busy machine slows both
    // alike, and what it slowed least is closest to the work done.
    let small = Number.POSITIVE_INFINITY;
    let large = Number.POSITIVE_INFINITY;
    for (let round = 0; round < 5; round++) {
      small = Math.min(small, showing(10_000));
      large = Math.min(large, showing(100_000));
    }
    // Backtracking that grows with the square of the output would take a hundred times as long.
    expect(large / small).toBeLessThan(40);
    expect(shown(...unfinished(100_000)).endsWith('\r\nend')).toBe(true);
  });
});
