import { describe, expect, it } from 'vitest';
import { plainText } from '../../main/tools/shell/terminalOutput';

const ESC = '\u001b';

describe('plainText (what the agent reads of a command’s output)', () => {
  it('removes colours, cursor moves, OSC strings and the charset switch `tput sgr0` prints', () => {
    const raw = `${ESC}[31mred${ESC}(B${ESC}[m\r\n${ESC}]0;title\u0007${ESC}[2J${ESC}[Hnext${ESC}]8;;https://x${ESC}\\link${ESC}]8;;${ESC}\\\r\n`;
    expect(plainText(raw)).toBe('red\nnextlink\n');
  });

  it('ends an unterminated OSC or DCS string at the next escape, not at the end of the output', () => {
    expect(plainText(`a${ESC}]0;never ended${ESC}[31mb`)).toBe('ab');
    expect(plainText(`a${ESC}Pdata${ESC}[0mb`)).toBe('ab');
  });
});
