import { applyPatch, parsePatch, type StructuredPatch } from 'diff';
import { z } from 'zod';
import type { Preview } from '../../shared/approval';
import { GateError } from '../../shared/errors';
import { defineTool } from '../registry/defineTool';
import { Redactor } from '../secrets/redactor';
import { replaceFileAtomically } from './stagedFile';
import { unifiedDiff } from './unifiedDiff';
import { confinePath, readFileNoFollow, refuseSymlinkTarget } from './workspacePath';

/** The largest file edit_file edits (its whole text is shown before and after in the preview). */
const MAX_FILE_BYTES = 5 * 1024 * 1024;
const MAX_ARGUMENT_CHARS = 5 * 1024 * 1024;

const EditInputSchema = z
  .object({
    path: z.string().min(1).describe('File path, relative to the workspace root; the file must exist'),
    strategy: z
      .enum(['snippet', 'apply', 'check'])
      .describe("snippet: replace `old` with `new`; apply: apply the unified diff `patch`; check: only say whether `patch` applies"),
    old: z.string().min(1).max(MAX_ARGUMENT_CHARS).optional().describe('snippet: the exact text to replace; it must occur exactly once'),
    new: z.string().max(MAX_ARGUMENT_CHARS).optional().describe('snippet: the text to put in its place'),
    patch: z.string().min(1).max(MAX_ARGUMENT_CHARS).optional().describe('apply/check: a unified diff of this one file'),
  })
  .strict()
  .superRefine((input, context) => {
    const wanted = input.strategy === 'snippet' ? ['old', 'new'] : ['patch'];
    const unwanted = input.strategy === 'snippet' ? ['patch'] : ['old', 'new'];
    for (const field of wanted) {
      if (input[field as keyof typeof input] === undefined) {
        context.addIssue({ code: 'custom', path: [field], message: `strategy ${input.strategy} needs ${field}` });
      }
    }
    for (const field of unwanted) {
      if (input[field as keyof typeof input] !== undefined) {
        context.addIssue({ code: 'custom', path: [field], message: `strategy ${input.strategy} takes no ${field}` });
      }
    }
  });
type EditInput = z.output<typeof EditInputSchema>;

const EditOutputSchema = z.object({
  path: z.string().describe('Workspace-relative path of the file'),
  strategy: z.enum(['snippet', 'apply', 'check']).describe('The strategy used'),
  applied: z.boolean().describe('Whether the file was changed (never for check)'),
  applies: z.boolean().describe('Whether the edit applies to the file as it is now'),
  bytesWritten: z.number().int().optional().describe('Bytes of the new file, when it was written'),
  failure: z.string().optional().describe('check: why the patch does not apply'),
});
type EditOutput = z.infer<typeof EditOutputSchema>;

/**
 * Edits an existing text file in place (seed 004): a snippet replaced exactly once, or a unified
 * diff applied whole. The new text is computed in memory, staged beside the file and committed by
 * one rename, so a patch that fails half-way leaves the file byte-identical. `check` is the same
 * tool's read-only behaviour: it reports whether a patch applies and never writes. It still goes
 * through the tool's approval (policy judges the tool, and only ever raises a tier by argument), so
 * an agent cannot pick a lower tier for itself; the prompt shows the diff the patch would make.
 */
export const editFileTool = defineTool({
  name: 'edit_file',
  version: '1.0.0',
  description:
    'Edits an existing UTF-8 text file inside the workspace. strategy "snippet" replaces `old` (which must occur exactly once; ' +
    'include surrounding lines to make it unique) with `new`; "apply" applies the unified diff `patch`; "check" only reports ' +
    'whether `patch` applies. A person approves the change after seeing its diff.',
  tier: 'ELEVATED',
  sideEffects: ['FsRead', 'FsWrite'],
  determinism: 'Deterministic',
  capabilities: ['fs:read', 'fs:write'],
  pathArguments: ['path'],
  supportsDryRun: true,
  input: EditInputSchema,
  output: EditOutputSchema,
  execute: (input, context): Preview | EditOutput => {
    const target = confinePath(context.workspace, input.path);
    refuseSymlinkTarget(context.workspace, input.path);
    if (!target.exists) throw new GateError('EVALIDATION', `${input.path} does not exist; edit_file edits existing files, write_file creates them`);
    const opened = readFileNoFollow(context.workspace, target.absolute, input.path, MAX_FILE_BYTES);
    const before = decodeText(opened.bytes, input.path);
    // A snippet that cuts into a secret held in the file matches nothing, and its hints look at the
    // redacted text: otherwise found-or-not (refused unasked, or a prompt) tests a guess at a prefix.
    const edited = editedText(before, input, new Redactor(context.hiddenSecrets ?? []));
    if (input.strategy === 'check' && !context.dryRun) {
      return { path: target.relative, strategy: 'check', applied: false, applies: edited.ok, ...(edited.ok ? {} : { failure: edited.failure }) };
    }
    if (!edited.ok) {
      if (input.strategy === 'check') return { kind: 'none', reason: `the patch does not apply, and the check will say so: ${edited.failure}` };
      throw new GateError('EVALIDATION', edited.failure);
    }
    if (context.dryRun) {
      const unified = unifiedDiff(target.relative, before, edited.after);
      return { kind: 'diff', path: target.relative, before, after: edited.after, unified, exists: true };
    }
    const bytesWritten = replaceFileAtomically(context.workspace, target.absolute, edited.after, { mode: opened.mode });
    return { path: target.relative, strategy: input.strategy, applied: true, applies: true, bytesWritten };
  },
});

/** The file's text, refused when it is not UTF-8 text (an edit would mangle it). */
function decodeText(bytes: Buffer, requested: string): string {
  if (bytes.includes(0)) throw new GateError('EVALIDATION', `${requested} looks binary (it holds NUL bytes); edit_file edits text only`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new GateError('EVALIDATION', `${requested} is not valid UTF-8 text; edit_file edits text only`);
  }
}

/** The text after the edit, or why the edit does not apply; `secrets` are the ones a snippet may not cut into. */
export function editedText(before: string, input: EditInput, secrets?: Redactor): { ok: true; after: string } | { ok: false; failure: string } {
  if (input.strategy === 'snippet') return replaceSnippet(before, input.old!, input.new!, input.path, secrets);
  return applyUnifiedDiff(before, input.patch!, input.path);
}

/**
 * Replaces the one occurrence of `old`; none or several is a failure that says how to fix the call.
 * An occurrence that starts or ends inside one of `secrets` in the text does not count.
 */
export function replaceSnippet(
  text: string,
  old: string,
  replacement: string,
  path: string,
  secrets?: Redactor,
): { ok: true; after: string } | { ok: false; failure: string } {
  if (old === replacement) return { ok: false, failure: '`old` and `new` are the same; there is nothing to change' };
  const spans = secrets?.secretSpans(text) ?? [];
  const found = occurrences(text, old, spans);
  if (found.length === 0) return { ok: false, failure: `\`old\` was not found in ${path}; ${notFoundHint(secrets ? secrets.redactText(text) : text, old)}` };
  if (found.length > 1) {
    return { ok: false, failure: `\`old\` matches ${found.length} times in ${path}; include more surrounding lines so it matches exactly once` };
  }
  const at = found[0]!;
  return { ok: true, after: text.slice(0, at) + replacement + text.slice(at + old.length) };
}

/** Where `needle` occurs, overlapping ones included (they are just as ambiguous), except where it cuts into a span. */
function occurrences(text: string, needle: string, spans: ReadonlyArray<{ start: number; end: number }> = []): number[] {
  const found: number[] = [];
  const cuts = (at: number) => spans.some(({ start, end }) => (at > start && at < end) || (at + needle.length > start && at + needle.length < end));
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) if (!cuts(at)) found.push(at);
  return found;
}

function notFoundHint(text: string, old: string): string {
  if (text.includes('\r\n') && !old.includes('\r\n') && occurrences(text, old.replace(/\n/g, '\r\n')).length > 0) {
    return 'the file has CRLF line endings and `old` has LF: send the lines with \\r\\n';
  }
  const squeeze = (value: string) => value.replace(/[ \t]+/g, ' ').replace(/ ?\n ?/g, '\n');
  if (squeeze(text).includes(squeeze(old))) {
    return 'it matches only if spaces and tabs are ignored: copy the lines exactly as read_file returns them, indentation included';
  }
  return 'read the file again with read_file and copy the lines to replace exactly, indentation included';
}

/** Applies a one-file unified diff whole, or names the first hunk that does not apply. */
export function applyUnifiedDiff(text: string, patch: string, path: string): { ok: true; after: string } | { ok: false; failure: string } {
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(patch);
  } catch (error) {
    return { ok: false, failure: `the patch is not a unified diff: ${(error as Error).message}` };
  }
  const files = parsed.filter((file) => file.hunks.length > 0);
  if (files.length === 0) return { ok: false, failure: 'the patch holds no hunks (no @@ … @@ lines); send a unified diff' };
  if (files.length > 1) return { ok: false, failure: `the patch changes ${files.length} files; send one edit_file call per file` };
  const file = files[0]!;
  const after = applyPatch(text, file);
  if (after !== false) return { ok: true, after };
  // Which hunk: the longest prefix of hunks that still applies ends just before it.
  const hunks = file.hunks;
  let failing = 0;
  while (failing < hunks.length - 1 && applyPatch(text, { ...file, hunks: hunks.slice(0, failing + 1) }) !== false) failing++;
  const hunk = hunks[failing]!;
  const header = `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
  return {
    ok: false,
    failure:
      `hunk ${failing + 1} of ${hunks.length} (${header}) does not apply to ${path}: its context and removed lines do not match ` +
      `the file near line ${hunk.oldStart}; nothing was changed. Read the file again and make a new patch`,
  };
}
