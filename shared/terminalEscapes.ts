/**
 * ECMA-48 escape sequences as a terminal (xterm.js, a pty's reader) reads them: CSI; OSC, ended by
 * BEL or ST; DCS, SOS, PM and APC, ended by ST; and the escapes of one final character after
 * optional intermediates (ESC 7, ESC c, the charset switch ESC ( B that `tput sgr0` prints).
 * An ESC inside a control string ends it (the terminal starts a new sequence there), so no pattern
 * looks past the next ESC and matching stays linear however hostile the text.
 */
const ESCAPE_SEQUENCE_SOURCE =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\|(?=\u001b))|\u001b[PX^_][^\u001b]*(?:\u001b\\|(?=\u001b))|\u001b[ -/]*[0-~]/u.source;

/** Every escape sequence in a text (a fresh global regex: a shared one carries lastIndex between uses). */
export function escapeSequences(): RegExp {
  return new RegExp(ESCAPE_SEQUENCE_SOURCE, 'gu');
}

/** Where an escape sequence starts at the very end of a text and has not ended yet (its end may come in the next piece). */
export function unfinishedSequenceStart(text: string): number | undefined {
  const start = text.lastIndexOf('\u001b');
  if (start < 0) return undefined;
  return /^\u001b(?:\[[0-?]*[ -/]*|\][^\u0007]*|[PX^_][\s\S]*|[ -/]*)$/u.test(text.slice(start)) ? start : undefined;
}
