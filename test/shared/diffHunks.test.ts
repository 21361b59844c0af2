import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { applyAcceptedHunks, describeHunk, diffHunks } from '../../shared/diffHunks';

const BEFORE = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join('\n') + '\n';
const AFTER = BEFORE.replace('line 3\n', 'line 3\nADDED\n').replace('line 25\n', 'CHANGED 25\n');
const UNIFIED = createTwoFilesPatch('a/list.txt', 'b/list.txt', BEFORE, AFTER);

describe('diff hunks', () => {
  it('numbers the hunks of a diff with their line ranges', () => {
    const hunks = diffHunks(UNIFIED);
    expect(hunks.map((hunk) => [hunk.number, hunk.added, hunk.removed])).toEqual([
      [1, 1, 0],
      [2, 1, 1],
    ]);
    expect(describeHunk(hunks[1]!)).toBe('hunk 2 (file lines 21\u201329, proposed lines 22\u201330)');
  });

  it('applies exactly the accepted hunks to the file', () => {
    expect(applyAcceptedHunks(BEFORE, UNIFIED, [])).toBe(AFTER);
    expect(applyAcceptedHunks(BEFORE, UNIFIED, [1])).toBe(BEFORE.replace('line 25\n', 'CHANGED 25\n'));
    expect(applyAcceptedHunks(BEFORE, UNIFIED, [2])).toBe(BEFORE.replace('line 3\n', 'line 3\nADDED\n'));
    expect(applyAcceptedHunks(BEFORE, UNIFIED, [1, 2])).toBe(BEFORE);
  });

  it('refuses a hunk the diff does not have, and a diff made from another text', () => {
    expect(() => applyAcceptedHunks(BEFORE, UNIFIED, [3])).toThrow('there is no hunk 3: the diff has 2 hunks');
    expect(() => applyAcceptedHunks(BEFORE.replace('line 25', 'other'), UNIFIED, [1])).toThrow('does not apply');
  });
});
