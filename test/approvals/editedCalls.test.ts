import { describe, expect, it } from 'vitest';
import type { Preview } from '../../shared/approval';
import { describeHunk, diffHunks } from '../../shared/diffHunks';
import { contentEditable, describeChanges, editedArguments, editNote, type EditBase } from '../../main/approvals/editedArguments';
import { unifiedDiff } from '../../main/tools/unifiedDiff';

/**
 * What a person's edit of a prompt's call becomes: the arguments the edited call runs with, the
 * problems that refuse the edit, and the summary the agent and the audit log are told.
 */

/** Thirty numbered lines, `line 1` to `line 30`. */
const BEFORE = Array.from({ length: 30 }, (_, index) => `line ${index + 1}\n`).join('');
/** The file with these lines changed to upper case. */
function changed(...lines: number[]): string {
  return BEFORE.split('\n').map((line, index) => (lines.includes(index + 1) ? line.toUpperCase() : line)).join('\n');
}
/** Two changes far apart: two hunks. */
const AFTER = changed(2, 28);

function diffPreview(path: string, before: string, after: string): Preview {
  return { kind: 'diff', path, before, after, unified: unifiedDiff(path, before, after), exists: before !== '' };
}

function writePrompt(overrides: Partial<EditBase> = {}): EditBase {
  const input = { path: 'notes.txt', content: AFTER };
  return { tool: 'write_file', input, shown: input, preview: diffPreview('notes.txt', BEFORE, AFTER), ...overrides };
}

function editPrompt(strategy: string): EditBase {
  const input = { path: 'notes.txt', strategy, patch: unifiedDiff('notes.txt', BEFORE, AFTER) };
  return { tool: 'edit_file', input, shown: input, preview: diffPreview('notes.txt', BEFORE, AFTER) };
}

describe('which prompts let a person edit the new content', () => {
  it('a write or an applying edit with a diff; not a check-only edit, another tool, or a prompt without a diff', () => {
    expect(contentEditable(writePrompt())).toBe(true);
    expect(contentEditable(editPrompt('apply'))).toBe(true);
    expect(contentEditable(editPrompt('check'))).toBe(false);
    expect(contentEditable({ ...writePrompt(), tool: 'delete_path' })).toBe(false);
    expect(contentEditable(writePrompt({ preview: { kind: 'none', reason: 'too large' } }))).toBe(false);
  });
});

describe('an edit of the new content', () => {
  it('becomes a write_file call with that content', () => {
    expect(editedArguments(writePrompt(), { content: 'mine\n' })).toEqual({ arguments: { path: 'notes.txt', content: 'mine\n' } });
  });

  it('becomes an edit_file call applying the patch from the file as previewed to that content', () => {
    expect(editedArguments(editPrompt('apply'), { content: 'mine\n' })).toEqual({
      arguments: { path: 'notes.txt', strategy: 'apply', patch: unifiedDiff('notes.txt', BEFORE, 'mine\n') },
    });
  });

  it('is refused for a check-only edit, a tool without content, and a prompt without a diff', () => {
    for (const base of [editPrompt('check'), { ...writePrompt(), tool: 'delete_path' }, writePrompt({ preview: { kind: 'none', reason: 'too large' } })]) {
      const result = editedArguments(base, { content: 'mine\n' });
      expect(result).toEqual({ problems: [{ field: '(content)', problem: `the new content of a ${base.tool} call cannot be edited here; edit its arguments instead` }] });
      expect(editedArguments(base, { rejectedHunks: [1] })).toEqual(result);
    }
  });
});

describe('hunks left out of a change', () => {
  const hunks = diffHunks(BEFORE, AFTER);

  it('write the file with only the other hunks, and name the ones left out', () => {
    expect(hunks).toHaveLength(2);
    const second = hunks[1]!;
    const result = editedArguments(writePrompt(), { rejectedHunks: [2, 2] });
    expect(result).toEqual({
      arguments: { path: 'notes.txt', content: changed(2) },
      rejectedHunks: [{ number: 2, header: `@@ -${second.oldStart},${second.oldLines} +${second.newStart},${second.newLines} @@`, description: describeHunk(second) }],
    });
  });

  it('are numbered in order whatever order the person gave them in', () => {
    const three = changed(2, 15, 28);
    const base = writePrompt({ input: { path: 'notes.txt', content: three }, preview: diffPreview('notes.txt', BEFORE, three) });
    expect(diffHunks(BEFORE, three)).toHaveLength(3);
    const result = editedArguments(base, { rejectedHunks: [3, 1] });
    expect(result).toMatchObject({ arguments: { content: changed(15) }, rejectedHunks: [{ number: 1 }, { number: 3 }] });
  });

  it('are refused when every hunk would be left out, or one is not in the diff', () => {
    expect(editedArguments(writePrompt(), { rejectedHunks: [1, 2] })).toEqual({
      problems: [{ field: '(hunks)', problem: 'every hunk is left out, so nothing would change: choose Deny instead' }],
    });
    // As many numbers as hunks, but one of them is not a hunk: that is the problem to tell.
    expect(editedArguments(writePrompt(), { rejectedHunks: [1, 3] })).toEqual({ problems: [{ field: '(hunks)', problem: 'there is no hunk 3: the diff has 2 hunks' }] });
  });
});

describe('an edit of the arguments', () => {
  const whole = 'x'.repeat(5000);
  const shortened = { 'toolgate/truncated': true, head: 'x'.repeat(20) };

  it('keeps the call’s whole value of a field left as shown, and takes the person’s value of a changed one', () => {
    const base = writePrompt({ input: { path: 'notes.txt', content: whole }, shown: { path: 'notes.txt', content: shortened } });
    expect(editedArguments(base, { arguments: { path: 'other.txt', content: shortened } })).toEqual({ arguments: { path: 'other.txt', content: whole } });
  });

  it('takes a field the person added, even one equal to a shown field the call does not have', () => {
    const base = writePrompt({ input: { path: 'notes.txt' }, shown: { path: 'notes.txt', mode: 'append' } });
    expect(editedArguments(base, { arguments: { path: 'notes.txt', mode: 'append', content: 'new' } })).toEqual({
      arguments: { path: 'notes.txt', mode: 'append', content: 'new' },
    });
  });

  it('refuses a changed field that still carries a shortened part, which would write the marker instead of the value', () => {
    const base = writePrompt({ input: { path: 'notes.txt', content: whole }, shown: { path: 'notes.txt', content: shortened } });
    for (const marker of ['toolgate/truncated', 'toolgate/omitted']) {
      const result = editedArguments(base, { arguments: { path: 'notes.txt', content: { [marker]: true, head: 'changed' } } });
      expect(result).toEqual({ problems: [{ field: 'content', problem: expect.stringContaining('shown shortened, so it cannot be edited here') }] });
    }
  });

  it('reads a prompt that showed no arguments object as showing nothing', () => {
    const base = writePrompt({ shown: null });
    expect(editedArguments(base, { arguments: { path: 'notes.txt', content: 'mine' } })).toEqual({ arguments: { path: 'notes.txt', content: 'mine' } });
  });

  it('may not turn a check-only edit into one that writes', () => {
    expect(editedArguments(editPrompt('check'), { arguments: { ...editPrompt('check').input, strategy: 'apply' } })).toEqual({
      problems: [{ field: 'strategy', problem: 'must stay "check": the call only checks whether a patch applies; an edit may not make it write' }],
    });
    const kept = editedArguments(editPrompt('check'), { arguments: { ...editPrompt('check').input, path: 'other.txt' } });
    expect(kept).toEqual({ arguments: { ...editPrompt('check').input, path: 'other.txt' } });
    // An applying edit may be moved elsewhere, or made a check.
    expect(editedArguments(editPrompt('apply'), { arguments: { ...editPrompt('apply').input, path: 'other.txt' } })).toMatchObject({ arguments: { path: 'other.txt', strategy: 'apply' } });
    expect(editedArguments(editPrompt('apply'), { arguments: { ...editPrompt('apply').input, strategy: 'check' } })).toMatchObject({ arguments: { strategy: 'check' } });
  });
});

describe('what an edit is said to have changed', () => {
  it('one line per argument removed, added or changed; unchanged ones unsaid', () => {
    const summary = describeChanges({ path: 'a.md', keep: [1, 2], mode: 'x' }, { path: 'b.md', keep: [1, 2], extra: true });
    expect(summary).toEqual({ changes: ['path: "a.md" \u2192 "b.md"', 'mode: removed (was "x")', 'extra: added (true)'] });
  });

  it('counts lines for text that spans lines or is long, and cuts long values short', () => {
    const long = 'y'.repeat(100);
    const summary = describeChanges({ content: 'a\nb\n', title: 'short', body: long, list: [long] }, { content: 'a\nc\nd\n', title: long, body: 'short', list: [] });
    expect(summary.changes).toEqual([
      'content: changed (+2 \u22121 lines)',
      'title: changed (+1 \u22121 lines)',
      'body: changed (+1 \u22121 lines)',
      `list: ${JSON.stringify([long]).slice(0, 60)}\u2026 \u2192 []`,
    ]);
    expect(describeChanges({ content: 'a\n' }, { content: 'b' }).changes).toEqual(['content: changed (+1 \u22121 lines)']);
    expect(describeChanges({ content: 'a' }, { content: 'b\n' }).changes).toEqual(['content: changed (+1 \u22121 lines)']);
    // A value turned from text into something else, or back, is shown as values.
    expect(describeChanges({ n: 5, m: 'a\nb' }, { n: 'a\nb', m: 5 }).changes).toEqual(['n: 5 \u2192 "a\\nb"', 'm: "a\\nb" \u2192 5']);
  });

  it('shows a value up to sixty characters whole, and counts lines of text only past sixty', () => {
    const sixty = 'z'.repeat(60);
    // 58 characters and two quotes: sixty, shown whole.
    expect(describeChanges({ title: 'z'.repeat(58) }, { title: 'short' }).changes).toEqual([`title: "${'z'.repeat(58)}" \u2192 "short"`]);
    expect(describeChanges({ title: sixty }, { title: 'short' }).changes).toEqual([`title: "${'z'.repeat(59)}\u2026 \u2192 "short"`]);
    expect(describeChanges({ title: 'short' }, { title: sixty }).changes).toEqual([`title: "short" \u2192 "${'z'.repeat(59)}\u2026`]);
  });

  it('names the hunks left out only when there are some', () => {
    const hunk = { number: 2, header: '@@ -10,3 +10,3 @@', description: 'hunk 2 (file lines 10–12, proposed lines 10–12)' };
    expect(describeChanges({ content: 'a' }, { content: 'b' }, [hunk])).toEqual({ changes: ['content: "a" \u2192 "b"'], rejectedHunks: [hunk] });
    expect(describeChanges({ content: 'a' }, { content: 'b' }, [])).toEqual({ changes: ['content: "a" \u2192 "b"'] });
  });
});

describe('the note the agent reads', () => {
  const hunk = { number: 2, header: '@@ -10,3 +10,3 @@', description: 'hunk 2' };

  it('says the call ran as edited, what changed and which hunks were left out', () => {
    expect(editNote({ changes: ['path: "a" \u2192 "b"'] })).toBe(
      'A person edited this call before approving it, and it ran as edited: path: "a" \u2192 "b". Read the result (and the file) again before building on it.',
    );
    expect(editNote({ changes: [], rejectedHunks: [hunk] })).toBe(
      'A person edited this call before approving it, and it ran as edited: left out hunk 2 @@ -10,3 +10,3 @@; only the other hunks were written. Read the result (and the file) again before building on it.',
    );
    expect(editNote({ changes: ['x: 1 \u2192 2'], rejectedHunks: [] })).not.toContain('left out');
    expect(editNote({ changes: ['x: 1 \u2192 2', 'y: 3 \u2192 4'] })).toContain('ran as edited: x: 1 \u2192 2; y: 3 \u2192 4.');
  });

  it('says the edited call failed, without claiming the other hunks were written', () => {
    expect(editNote({ changes: ['x: 1 \u2192 2', 'y: 3 \u2192 4'] }, false)).toContain('approving it (x: 1 \u2192 2; y: 3 \u2192 4), and');
    expect(editNote({ changes: [], rejectedHunks: [hunk, { ...hunk, number: 3, description: 'hunk 3' }] }, false)).toBe(
      'A person edited this call before approving it (left out hunk 2 @@ -10,3 +10,3 @@; hunk 3 @@ -10,3 +10,3 @@), and the edited call failed: see the error.',
    );
  });
});
