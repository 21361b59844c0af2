import { applyPatch, structuredPatch, type StructuredPatchHunk } from 'diff';

/** How long a line-by-line diff may take before the change is taken as one whole-file replacement. */
const DIFF_TIMEOUT_MS = 2000;

/** One hunk of a file diff, numbered from 1 as the prompt shows it. */
export interface DiffHunk {
  /** Its number, 1 for the first. */
  number: number;
  /** First line of the file it covers (context included), and how many. */
  oldStart: number;
  oldLines: number;
  /** First line of the proposed file it covers, and how many. */
  newStart: number;
  newLines: number;
  /** Lines added and removed by it. */
  added: number;
  removed: number;
}

function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** One hunk that replaces every line: always correct, computed in linear time. */
function wholeFileHunk(before: string, after: string): StructuredPatchHunk {
  const removed = linesOf(before);
  const added = linesOf(after);
  return {
    oldStart: 1,
    oldLines: removed.length,
    newStart: 1,
    newLines: added.length,
    lines: [...removed.map((line) => `-${line}`), ...added.map((line) => `+${line}`)],
  };
}

/**
 * The hunks that turn `before` into `after`, computed from the two texts alone (never parsed back
 * from a diff's text, whose header holds a name the agent chose). A change too large to diff line
 * by line within the time limit is one whole-file hunk.
 */
export function changeHunks(before: string, after: string): StructuredPatchHunk[] {
  // A prompt's hunks are asked for again and again (numbered, then applied): the diff is made once.
  if (lastChange?.before !== before || lastChange.after !== after) {
    const patch = structuredPatch('', '', before, after, undefined, undefined, { timeout: DIFF_TIMEOUT_MS });
    lastChange = { before, after, hunks: patch ? patch.hunks : [wholeFileHunk(before, after)] };
  }
  // Copies: formatPatch shifts the start of an empty range in the hunk it is given.
  return lastChange.hunks.map((hunk) => ({ ...hunk }));
}

let lastChange: { before: string; after: string; hunks: StructuredPatchHunk[] } | undefined;

/** The hunks of the change from `before` to `after` (a diff preview's two sides), in order, numbered as its unified diff shows them. */
export function diffHunks(before: string, after: string): DiffHunk[] {
  return changeHunks(before, after).map((hunk, index) => ({
    number: index + 1,
    // A unified diff names the line before an empty range (`@@ -0,0`), as the preview shows it.
    oldStart: hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart,
    oldLines: hunk.oldLines,
    newStart: hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart,
    newLines: hunk.newLines,
    added: hunk.lines.filter((line) => line.startsWith('+')).length,
    removed: hunk.lines.filter((line) => line.startsWith('-')).length,
  }));
}

/** "lines 3–5" (or "line 3", or "no lines") for a range of `count` lines starting at `start`. */
function lineRange(start: number, count: number): string {
  if (count === 0) return 'no lines';
  return count === 1 ? `line ${start}` : `lines ${start}\u2013${start + count - 1}`;
}

/** A hunk in words a person and an agent read: "hunk 2 (file lines 8–14, proposed lines 8–15)". */
export function describeHunk(hunk: DiffHunk): string {
  return `hunk ${hunk.number} (file ${lineRange(hunk.oldStart, hunk.oldLines)}, proposed ${lineRange(hunk.newStart, hunk.newLines)})`;
}

/**
 * The file as it is (`before`) with only the hunks of its change to `after` that are not in
 * `rejected` applied: what "leave this hunk out" writes. Throws when a hunk number is not in the
 * diff, or when the accepted hunks cannot be applied on their own.
 */
export function applyAcceptedHunks(before: string, after: string, rejected: readonly number[]): string {
  const hunks = changeHunks(before, after);
  const count = hunks.length;
  const unknown = rejected.find((number) => !Number.isInteger(number) || number < 1 || number > count);
  if (unknown !== undefined) throw new RangeError(`there is no hunk ${unknown}: the diff has ${count} hunk${count === 1 ? '' : 's'}`);
  const leftOut = new Set(rejected);
  if (leftOut.size === 0) return after;
  if (leftOut.size === count) return before;
  const accepted = applyPatch(before, { oldFileName: '', newFileName: '', oldHeader: undefined, newHeader: undefined, hunks: hunks.filter((_hunk, index) => !leftOut.has(index + 1)) });
  if (accepted === false) throw new RangeError('the accepted hunks do not apply to the file on their own');
  return accepted;
}
