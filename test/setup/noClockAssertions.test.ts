import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findClockAssertions } from './clockAssertions';

const root = join(__dirname, '../..');

/**
 * Wall-clock assertions still waiting to become bounds on work, per file. The list only shrinks:
 * a new one anywhere fails, and so does a file with fewer than listed (lower its number).
 */
const NOT_YET_BOUNDED_BY_WORK: Record<string, number> = {
  // Backtracking inside one RegExp cannot be counted from JavaScript: these need a ReDoS checker
  // or a linear-time engine to bound instead.
  'test/renderer/terminalText.test.ts': 1,
  'test/tools/gitignore.test.ts': 1,
  // A rate limit (ten a second): the count it allows grows with the time taken, so it cannot fail on a slow machine.
  'test/upstream/hostileUpstream.test.ts': 1,
};

describe('tests assert work, not wall-clock time', () => {
  it('no test file asserts an elapsed time beyond those still listed', () => {
    const found = findClockAssertions(join(root, 'test'), root);
    const byFile = new Map<string, string[]>();
    for (const { file, line, text } of found) byFile.set(file, [...(byFile.get(file) ?? []), `${file}:${line}: ${text}`]);
    const problems: string[] = [];
    for (const [file, lines] of byFile) {
      const allowed = NOT_YET_BOUNDED_BY_WORK[file] ?? 0;
      if (lines.length > allowed) {
        problems.push(`${file} asserts an elapsed time (${lines.length} places, ${allowed} listed); bound the work instead (rows read, passes made, bytes) and time it in bench/:\n  ${lines.join('\n  ')}`);
      }
    }
    for (const [file, allowed] of Object.entries(NOT_YET_BOUNDED_BY_WORK)) {
      const left = byFile.get(file)?.length ?? 0;
      if (left < allowed) problems.push(`${file} now has ${left} elapsed-time assertions, fewer than the ${allowed} listed: lower its number in this file`);
    }
    expect(problems.join('\n')).toBe('');
  });

  it('no end-to-end spec holds a timing it prints to a limit', () => {
    const found = findClockAssertions(join(root, 'e2e'), root, { limitsOnly: true });
    expect(found.map(({ file, line, text }) => `${file}:${line}: ${text}: print it, check what the page shows, and time it in bench/`)).toEqual([]);
  });

  it('the scan finds a limit on an elapsed time, in its usual shapes, and leaves waits for a condition alone', () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolgate-clocks-'));
    try {
      // The samples are kept as .txt, which the scan of test/ does not read, and copied in as tests.
      for (const name of ['timed', 'waits']) copyFileSync(join(__dirname, `../fixtures/clockAssertions/${name}.txt`), join(folder, `${name}.test.ts`));
      expect(findClockAssertions(folder, folder).map(({ file, line }) => `${file}:${line}`)).toEqual([
        'timed.test.ts:2',
        'timed.test.ts:3',
        'timed.test.ts:4',
        'timed.test.ts:5',
        'timed.test.ts:6',
        'timed.test.ts:7',
      ]);
      // In the end-to-end specs, which print what they time, only the limits are flagged.
      expect(findClockAssertions(folder, folder, { limitsOnly: true }).map(({ file, line }) => `${file}:${line}`)).toEqual([
        'timed.test.ts:2',
        'timed.test.ts:4',
        'timed.test.ts:5',
        'timed.test.ts:6',
        'timed.test.ts:7',
      ]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
