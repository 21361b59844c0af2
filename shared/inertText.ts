/** Control characters a terminal or a log viewer would act on: C0 (but tab and newline), DEL and C1. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text from a tool made harmless to show: every control character, the ESC that starts a terminal
 * escape sequence among them, becomes its visible escape (`\x1b`). Tabs and newlines stay.
 * Invalid UTF-8 never gets this far: tool output is decoded with U+FFFD in its place.
 */
export function inertText(text: string): string {
  return text.replace(CONTROL, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * What a terminal must not get raw: the control characters above, plus the line and paragraph
 * separators and the bidi controls (U+061C, U+200E–F, U+202A–E, U+2066–9) that reorder what a reader sees.
 */
const TERMINAL_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text on its way to a terminal made harmless: each unsafe character becomes its `\uXXXX` escape.
 * JSON stays valid JSON with the same value (JSON.stringify leaves these raw inside strings, where
 * `\uXXXX` means the same character), so the CLI passes everything it prints through here.
 */
export function terminalText(text: string): string {
  return text.replace(TERMINAL_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
