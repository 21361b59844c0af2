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
