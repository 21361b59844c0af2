import { createTwoFilesPatch } from 'diff';

/** How long a line-by-line diff may take before the preview falls back to a whole-file replacement. */
const DIFF_TIMEOUT_MS = 2000;

function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** A unified diff that replaces every line: always correct, computed in linear time. */
function wholeFileReplacement(path: string, before: string, after: string): string {
  const removed = linesOf(before);
  const added = linesOf(after);
  return [
    `--- a/${path}`,
    `+++ b/${path}`,
    `@@ -${removed.length > 0 ? 1 : 0},${removed.length} +${added.length > 0 ? 1 : 0},${added.length} @@`,
    ...removed.map((line) => `-${line}`),
    ...added.map((line) => `+${line}`),
    '',
  ].join('\n');
}

/**
 * The unified diff of a file change for a person to judge. A change too large to diff line by line
 * within the time limit is shown as a whole-file replacement instead of never being shown.
 */
export function unifiedDiff(path: string, before: string, after: string): string {
  const patch = createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, undefined, undefined, { timeout: DIFF_TIMEOUT_MS });
  return patch ?? wholeFileReplacement(path, before, after);
}
