import { escapeSequences, unfinishedSequenceStart } from '../../shared/terminalEscapes';
import { revealInvisibles } from './invisibles';

/**
 * What the Live terminal is allowed to do with a tool's output: draw it, in colour, line after line.
 * Everything else a terminal would obey is taken out before xterm.js sees it, because a command
 * that clears the screen, moves the cursor up or rewrites a line could hide from the person what
 * it printed a moment earlier ("rm -rf ~" drawn over by "echo hello"):
 * - SGR sequences (ESC [ … m) stay, except conceal (8), which draws text invisibly;
 * - every other escape goes: cursor moves, screen and line clears, scroll regions, the alternate
 *   screen, modes, OSC (titles, hyperlinks, the clipboard's OSC 52), DCS, SOS, PM, APC, charset
 *   switches, resets;
 * - a carriage return that does not end a line starts a new one, so nothing is drawn over;
 * - any other control character (backspace, the 8-bit C1 forms of CSI and OSC, a stray ESC) and
 *   any blank-rendering character is shown as its escape, ⟨U+0008⟩, like the console's other text.
 * Output comes in pieces: a sequence cut at the end of one piece is held until the next one.
 */
export class TerminalText {
  private held = '';
  private lineEndedWithCr = false;

  /** The safe text for the next piece of output. */
  push(chunk: string): string {
    let text = this.held + chunk;
    this.held = '';
    if (this.lineEndedWithCr) {
      // The CR that ended the last piece already became a line break: its LF is not a second one.
      text = text.replace(/^\r*\n?/, '');
      this.lineEndedWithCr = false;
    }
    const cut = incompleteSequenceStart(text);
    if (cut !== undefined) {
      this.held = text.slice(cut);
      text = text.slice(0, cut);
    }
    let out = '';
    let last = 0;
    for (const match of text.matchAll(escapeSequences())) {
      out += visibleLines(text.slice(last, match.index));
      out += keptSgr(match[0]);
      last = match.index + match[0].length;
    }
    const tail = text.slice(last);
    out += visibleLines(tail);
    if (tail.endsWith('\r')) this.lineEndedWithCr = true;
    return out;
  }
}

// A sequence whose end has not arrived is held this long at most; past that its ESC is shown as text.
const MAX_HELD_CHARS = 4096;

/** Where a sequence cut at the end of a piece starts, when it is short enough to wait for. */
function incompleteSequenceStart(text: string): number | undefined {
  const start = unfinishedSequenceStart(text);
  return start !== undefined && text.length - start <= MAX_HELD_CHARS ? start : undefined;
}

/** Text between sequences: every kind of line end becomes CR LF, everything hidden is escaped. */
function visibleLines(text: string): string {
  return text
    .split(/\r+\n?|\n/)
    .map(revealInvisibles)
    .join('\r\n');
}

/** The SGR sequence with conceal removed, or nothing for any other sequence. */
function keptSgr(sequence: string): string {
  const sgr = /^\u001b\[([0-9;:]*)m$/u.exec(sequence);
  if (!sgr) return '';
  const kept: string[] = [];
  const params = sgr[1]!.split(';');
  for (let i = 0; i < params.length; i++) {
    const param = params[i]!;
    // The terminal reads "08" as 8; a colon form ("38:2::r:g:b") carries its own arguments.
    const code = Number(param.split(':')[0] || '0');
    if (!param.includes(':') && EXTENDED_COLOURS.has(code)) {
      // 38/48/58 take their colour from the next 2 (256 colours: 5;n) or 4 (true colour: 2;r;g;b) parameters.
      const width = params[i + 1] === '5' ? 2 : params[i + 1] === '2' ? 4 : 0;
      kept.push(...params.slice(i, i + 1 + width));
      i += width;
    } else if (code !== CONCEAL) {
      kept.push(param);
    }
  }
  return kept.length > 0 ? `\u001b[${kept.join(';')}m` : '';
}

/** SGR 8: draws text in the background colour, as if it were not there. */
const CONCEAL = 8;
/** SGR codes whose colour follows in the next parameters. */
const EXTENDED_COLOURS = new Set([38, 48, 58]);
