// Finds tests that assert how long something took. A wall-clock limit fails on a busy machine and
// passes alone, so it tells nothing about the code: a test bounds work instead (rows read, passes
// made, bytes allocated) and the timing lives in `npm run bench`. Waiting for a condition until a
// deadline (`Date.now() > deadline`) is not an assertion on time and is not flagged.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** One place a test computes or bounds an elapsed time. */
export interface ClockAssertion {
  file: string;
  line: number;
  text: string;
}

/** A clock read subtracted from, or a start time subtracted: an elapsed time computed in a test. */
const ELAPSED = /(?:Date|performance)\.now\(\)\s*-(?!\s*\d)|-\s*(?:started|startedAt|start|began)\b|process\.hrtime/;
/**
 * An upper bound on something named as a duration (`ms`, `tookMs`, `elapsed`, `p99Ms`…) against a
 * number or a constant: a duration reported by the code and held to a limit. Comparing two reported
 * durations with each other (ran < total) is consistency, not a limit, and passes.
 */
const DURATION_LIMIT = /expect\(\s*[^()]*?\b\w*(?:[a-z0-9]Ms|\bms|elapsed|Elapsed|[dD]uration|[tT]ook)\w*\b[^()]*\)\s*\.toBeLessThan(?:OrEqual)?\(([^)]*)\)/;

/** Whether the bound a duration is held to is a fixed limit (a number, a CONSTANT, a Math.max of one). */
function fixedLimit(bound: string): boolean {
  return /\d|\b[A-Z][A-Z0-9_]{2,}\b|Math\./.test(bound);
}

/** Every .ts and .tsx file below a folder. */
export function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/**
 * The elapsed-time assertions in the test sources below `testRoot`, named relative to `projectRoot`.
 * `limitsOnly` (the end-to-end specs, which print what they timed beside what they check) flags
 * only a limit: an elapsed time inside an expect(), or a duration held to a fixed bound, whatever
 * name it was given in the file (`const renderMs = Date.now() - started` makes `renderMs` one).
 */
export function findClockAssertions(testRoot: string, projectRoot: string, { limitsOnly = false } = {}): ClockAssertion[] {
  const found: ClockAssertion[] = [];
  for (const path of sourceFiles(testRoot)) {
    const lines = readFileSync(path, 'utf8').split('\n');
    // Names given an elapsed time in this file: a limit on one is a limit on time.
    const timed = new Set(lines.flatMap((text) => (ELAPSED.test(text) ? [...text.matchAll(/\b(?:const|let)\s+(\w+)\s*=/g)].map((match) => match[1]!) : [])));
    lines.forEach((text, index) => {
      if (/^\s*(\/\/|\*)/.test(text)) return;
      const limit = DURATION_LIMIT.exec(text);
      const bound = /expect\(\s*(\w+)\s*\)\s*\.toBeLessThan(?:OrEqual)?\(([^)]*)\)/.exec(text);
      const namedLimit = bound !== null && timed.has(bound[1]!) && fixedLimit(bound[2]!);
      const elapsedHeld = limitsOnly ? /expect\(/.test(text) && ELAPSED.test(text) : ELAPSED.test(text);
      if (elapsedHeld || namedLimit || (limit && fixedLimit(limit[1]!))) found.push({ file: relative(projectRoot, path), line: index + 1, text: text.trim() });
    });
  }
  return found;
}
