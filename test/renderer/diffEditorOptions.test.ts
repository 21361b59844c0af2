import { createTwoFilesPatch } from 'diff';
import { linesDiffComputers } from 'monaco-editor/esm/vs/editor/common/diff/linesDiffComputers.js';
import { describe, expect, it } from 'vitest';
import { countDiffLines, type DiffStats } from '../../renderer/format/diffStats';
import {
  addedLineCount,
  addedLinesDecoration,
  DIFF_EDITOR_OPTIONS,
  NEW_FILE_EDITOR_OPTIONS,
} from '../../renderer/views/approvals/diffEditorOptions';

/** The "+N −M" the prompt's header shows: counted from the gate's unified diff. */
function headerStats(before: string, after: string): DiffStats {
  return countDiffLines(createTwoFilesPatch('a/f', 'b/f', before, after));
}

/** The lines the diff editor highlights (removed on the left, added on the right) with our options. */
function highlightedLines(before: string, after: string): DiffStats {
  const { changes } = linesDiffComputers.getDefault().computeDiff(before.split('\n'), after.split('\n'), {
    // Monaco's own default when the option is left out.
    ignoreTrimWhitespace: DIFF_EDITOR_OPTIONS.ignoreTrimWhitespace ?? true,
    maxComputationTimeMs: 0,
    computeMoves: false,
  });
  return {
    added: changes.reduce((sum, change) => sum + change.modified.length, 0),
    removed: changes.reduce((sum, change) => sum + change.original.length, 0),
  };
}

describe('the diff editor', () => {
  it.each([
    ['re-indenting a Python return', 'def f(xs):\n    for x in xs:\n        pass\n    return x\n', 'def f(xs):\n    for x in xs:\n        pass\n        return x\n'],
    ['a Makefile tab turned into spaces', 'build:\n\tgo build ./...\n', 'build:\n        go build ./...\n'],
    ['trailing spaces added', 'a\nb\n', 'a  \nb\n'],
    ['an ordinary edit', 'one\ntwo\nthree\n', 'one\n2\nthree\nfour\n'],
  ])('highlights %s, as many lines as the header counts', (_name, before, after) => {
    const stats = headerStats(before, after);
    expect(stats.added + stats.removed).toBeGreaterThan(0);
    expect(highlightedLines(before, after)).toEqual(stats);
  });

  it('wraps long lines on both sides and draws control, bidi and invisible characters', () => {
    for (const options of [DIFF_EDITOR_OPTIONS, NEW_FILE_EDITOR_OPTIONS]) {
      expect(options.wordWrap).toBe('on');
      expect(options.renderControlCharacters).toBe(true);
      expect(options.unicodeHighlight).toMatchObject({ invisibleCharacters: true, ambiguousCharacters: true });
      expect(options.readOnly).toBe(true);
    }
    expect(DIFF_EDITOR_OPTIONS.diffWordWrap).toBe('on');
  });
});

describe('a new file', () => {
  it('would show a deleted line 1 in a diff against the empty file, which is why it is not diffed', () => {
    // The empty "before" is one empty line to Monaco; without a final newline it pairs with line 1.
    expect(headerStats('', 'hi')).toEqual({ added: 1, removed: 0 });
    expect(highlightedLines('', 'hi')).toEqual({ added: 1, removed: 1 });
  });

  it.each(['hi', 'a\nb\n', 'a\nb', '\n', '\n\nx', ''])('marks as many lines added as the header counts (%j)', (after) => {
    expect(addedLineCount(after)).toBe(headerStats('', after).added);
    const marked = addedLinesDecoration(addedLineCount(after));
    const lines = marked.reduce((sum, { range }) => sum + range.endLineNumber - range.startLineNumber + 1, 0);
    expect(lines).toBe(headerStats('', after).added);
    expect(marked.every(({ options }) => options.isWholeLine && options.className === 'line-insert')).toBe(true);
  });
});
