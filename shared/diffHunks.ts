import { applyPatch, parsePatch, type StructuredPatch } from 'diff';

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

function onlyFile(unified: string): StructuredPatch | undefined {
  return parsePatch(unified).find((file) => file.hunks.length > 0);
}

/** The hunks of a one-file unified diff (a diff preview's `unified`), in order. */
export function diffHunks(unified: string): DiffHunk[] {
  const file = onlyFile(unified);
  if (!file) return [];
  return file.hunks.map((hunk, index) => ({
    number: index + 1,
    oldStart: hunk.oldStart,
    oldLines: hunk.oldLines,
    newStart: hunk.newStart,
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
 * The file as it is (`before`) with only the hunks of `unified` that are not in `rejected`
 * applied: what "leave this hunk out" writes. Throws when a hunk number is not in the diff or
 * the diff does not apply to `before` (it was made from another text).
 */
export function applyAcceptedHunks(before: string, unified: string, rejected: readonly number[]): string {
  const file = onlyFile(unified);
  const count = file?.hunks.length ?? 0;
  const unknown = rejected.find((number) => !Number.isInteger(number) || number < 1 || number > count);
  if (unknown !== undefined) throw new RangeError(`there is no hunk ${unknown}: the diff has ${count} hunk${count === 1 ? '' : 's'}`);
  if (!file) return before;
  const leftOut = new Set(rejected);
  const after = applyPatch(before, { ...file, hunks: file.hunks.filter((_hunk, index) => !leftOut.has(index + 1)) });
  if (after === false) throw new RangeError('the diff does not apply to the file it was made from');
  return after;
}
