import type { CallEdit, EditSummary, Preview, RejectedHunk } from '../../shared/approval';
import { canonicalize } from '../../shared/canonicalJson';
import { applyAcceptedHunks, describeHunk, diffHunks, type DiffHunk } from '../../shared/diffHunks';
import { countDiffLines } from '../executor/steps/preparePreview';
import { unifiedDiff } from '../tools/unifiedDiff';

/** A field of an edited call and what is wrong with it (`(arguments)` for the call as a whole). */
export interface EditProblem {
  field: string;
  problem: string;
}

/** The call a prompt is about, as the edit starts from it. */
export interface EditBase {
  /** The tool's name. */
  tool: string;
  /** The call's own arguments, whole (placeholders unresolved). */
  input: Record<string, unknown>;
  /** The arguments as the prompt showed them (long strings cut, secrets as placeholders). */
  shown: unknown;
  /** The call's preview, whole (secrets not redacted). */
  preview: Preview;
}

/** The arguments an edit asks for, with the hunks it left out. */
export interface EditedArguments {
  arguments: Record<string, unknown>;
  rejectedHunks?: RejectedHunk[];
}

type DiffPreview = Extract<Preview, { kind: 'diff' }>;

/**
 * The tools whose new file content is edited in the diff's right pane, and how new content becomes
 * their arguments. edit_file's edit becomes the patch from the file to that content, so it still
 * edits the file as it is (and fails if the file changed).
 */
const CONTENT_ARGUMENTS: Record<string, (input: Record<string, unknown>, diff: DiffPreview, after: string) => Record<string, unknown>> = {
  write_file: (input, _diff, after) => ({ ...input, content: after }),
  edit_file: (input, diff, after) => ({ path: input.path, strategy: 'apply', patch: unifiedDiff(diff.path, diff.before, after) }),
};

/**
 * Argument values an edit may not move away from: a call that only looks (edit_file's `check`)
 * would become one that writes.
 */
const FIXED_VALUES: Record<string, ReadonlyArray<{ argument: string; value: unknown; why: string }>> = {
  edit_file: [{ argument: 'strategy', value: 'check', why: 'the call only checks whether a patch applies; an edit may not make it write' }],
};

const CUT_MARKERS = ['toolgate/truncated', 'toolgate/omitted'];

/** Whether the prompt's new content can be edited (and its hunks left out) for this call. */
export function contentEditable(base: Pick<EditBase, 'tool' | 'input' | 'preview'>): boolean {
  return base.preview.kind === 'diff' && CONTENT_ARGUMENTS[base.tool] !== undefined && !locked(base.tool, base.input);
}

function locked(tool: string, input: Record<string, unknown>): boolean {
  return (FIXED_VALUES[tool] ?? []).some(({ argument, value }) => input[argument] === value);
}

/**
 * Turns a person's edit into the arguments the edited call would have, or says what is wrong.
 * Argument edits keep the call's own value of every field left as shown (a field shown cut, or
 * with a secret as its placeholder, keeps its whole value); content and hunk edits are computed
 * here from the file as the preview read it, never taken from the console's copy of it.
 */
export function editedArguments(base: EditBase, edit: CallEdit): EditedArguments | { problems: EditProblem[] } {
  if (edit.arguments) return mergedArguments(base, edit.arguments);
  const { preview } = base;
  const toArguments = CONTENT_ARGUMENTS[base.tool];
  if (preview.kind !== 'diff' || !toArguments || locked(base.tool, base.input)) {
    return { problems: [{ field: '(content)', problem: `the new content of a ${base.tool} call cannot be edited here; edit its arguments instead` }] };
  }
  if (edit.content !== undefined) return { arguments: toArguments(base.input, preview, edit.content) };
  const rejected = [...new Set(edit.rejectedHunks ?? [])].sort((a, b) => a - b);
  // The hunks come from the file as previewed and the proposed content, never from the diff's text.
  let hunks: DiffHunk[];
  let after: string;
  try {
    hunks = diffHunks(preview.before, preview.after);
    if (rejected.length >= hunks.length && rejected.every((number) => number <= hunks.length)) {
      return { problems: [{ field: '(hunks)', problem: 'every hunk is left out, so nothing would change: choose Deny instead' }] };
    }
    after = applyAcceptedHunks(preview.before, preview.after, rejected);
  } catch (error) {
    return { problems: [{ field: '(hunks)', problem: (error as Error).message }] };
  }
  return {
    arguments: toArguments(base.input, preview, after),
    rejectedHunks: rejected.map((number) => {
      const hunk = hunks[number - 1]!;
      return { number, header: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, description: describeHunk(hunk) };
    }),
  };
}

function mergedArguments(base: EditBase, edited: Record<string, unknown>): EditedArguments | { problems: EditProblem[] } {
  const shown = (typeof base.shown === 'object' && base.shown !== null ? base.shown : {}) as Record<string, unknown>;
  const merged: Record<string, unknown> = {};
  const problems: EditProblem[] = [];
  for (const [field, value] of Object.entries(edited)) {
    const asShown = Object.hasOwn(shown, field) && canonicalize(value) === canonicalize(shown[field]);
    if (asShown && Object.hasOwn(base.input, field)) {
      merged[field] = base.input[field];
      continue;
    }
    if (CUT_MARKERS.some((marker) => canonicalize(value).includes(JSON.stringify(marker)))) {
      problems.push({ field, problem: 'it was shown shortened, so it cannot be edited here; leave it as shown or deny the call' });
    }
    merged[field] = value;
  }
  for (const { argument, value, why } of FIXED_VALUES[base.tool] ?? []) {
    if (base.input[argument] === value && merged[argument] !== value) problems.push({ field: argument, problem: `must stay ${JSON.stringify(value)}: ${why}` });
  }
  return problems.length > 0 ? { problems } : { arguments: merged };
}

const SHORT_VALUE = 60;

function shortJson(value: unknown): string {
  const text = canonicalize(value ?? null);
  return text.length > SHORT_VALUE ? `${text.slice(0, SHORT_VALUE)}…` : text;
}

/** What changed from the call's arguments to the edited ones, one line per argument. */
export function describeChanges(before: Record<string, unknown>, after: Record<string, unknown>, rejectedHunks?: readonly RejectedHunk[]): EditSummary {
  const changes: string[] = [];
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[field];
    const now = after[field];
    if (!Object.hasOwn(after, field)) changes.push(`${field}: removed (was ${shortJson(was)})`);
    else if (!Object.hasOwn(before, field)) changes.push(`${field}: added (${shortJson(now)})`);
    else if (canonicalize(was) === canonicalize(now)) continue;
    else if (typeof was === 'string' && typeof now === 'string' && (was.includes('\n') || now.includes('\n') || was.length > SHORT_VALUE || now.length > SHORT_VALUE)) {
      const { added, removed } = countDiffLines(unifiedDiff(field, was, now));
      changes.push(`${field}: changed (+${added} \u2212${removed} lines)`);
    } else changes.push(`${field}: ${shortJson(was)} \u2192 ${shortJson(now)}`);
  }
  return { changes, ...(rejectedHunks && rejectedHunks.length > 0 ? { rejectedHunks: [...rejectedHunks] } : {}) };
}

/** The note the agent reads with its result: that a person changed its call, and how. */
export function editNote(summary: EditSummary, completed = true): string {
  const parts = [...summary.changes];
  if (summary.rejectedHunks && summary.rejectedHunks.length > 0) {
    parts.push(`left out ${summary.rejectedHunks.map((hunk) => `${hunk.description} ${hunk.header}`).join('; ')}${completed ? '; only the other hunks were written' : ''}`);
  }
  if (!completed) return `A person edited this call before approving it (${parts.join('; ')}), and the edited call failed: see the error.`;
  return `A person edited this call before approving it, and it ran as edited: ${parts.join('; ')}. Read the result (and the file) again before building on it.`;
}
