import { useEffect, useMemo, useRef, useState } from 'react';
import type { ApprovalRequest, CallEdit, EditCheck } from '../../../../shared/approval';
import { applyAcceptedHunks } from '../../../../shared/diffHunks';
import { prettyJson } from '../../../format/json';
import { describe } from '../../../store/consoleSync';
import { useConsoleSync } from '../../consoleContext';
import type { DiffEditing } from './EditableDiff';
import { markEditing } from './editsInProgress';

/** How long typing pauses before the gate checks the edit. */
const CHECK_DELAY_MS = 200;

/** What the person has changed so far; one kind of edit at a time. */
export interface EditDraft {
  /** The arguments as typed (JSON text), while the arguments editor is open. */
  argumentsText?: string;
  /** The new content as typed in the diff's right pane. */
  content?: string;
  /** Hunks of the shown diff left out, by number. */
  rejectedHunks: number[];
}

/** A field and what is wrong with it. */
export interface EditProblem {
  field: string;
  problem: string;
}

/** A prompt's edit: the draft, the edit it makes, and the gate's verdict on it. */
export interface CallEditing {
  draft: EditDraft;
  setDraft: (draft: EditDraft) => void;
  /** Back to the call as the agent sent it. */
  reset: () => void;
  /** The edit to send with Approve; undefined while nothing is changed. */
  edit: CallEdit | undefined;
  /** What is wrong with it (the console's JSON parse first, then the gate's checks). */
  problems: EditProblem[];
  /** The gate's verdict, once it has checked this very edit. */
  check: EditCheck | undefined;
  /** Why Approve is disabled now (the failing fields, or that the check is under way). */
  blockedBy: string | undefined;
  /** How the prompt's file diff is edited (write_file and edit_file); absent for other calls. */
  diff: DiffEditing | undefined;
}

/** The right side of an editable diff: the person's text, the accepted hunks, or the proposal; locked while another kind of edit is made. */
function diffEditingOf(request: ApprovalRequest, draft: EditDraft, setDraft: (draft: EditDraft) => void): DiffEditing | undefined {
  const { preview } = request;
  if (preview.kind !== 'diff' || !request.editable?.content) return undefined;
  let shown = draft.content === undefined ? preview.after : undefined;
  if (draft.content === undefined && draft.rejectedHunks.length > 0) {
    try {
      shown = applyAcceptedHunks(preview.before, preview.after, draft.rejectedHunks);
    } catch {
      // The gate names the problem; the pane keeps the proposal meanwhile.
    }
  }
  return {
    shown,
    readOnly: draft.argumentsText !== undefined || draft.rejectedHunks.length > 0,
    onContent: (content) => setDraft({ ...draft, content: content === preview.after ? undefined : content }),
  };
}

/** The edit a draft makes, or why it cannot be sent as it is. */
function editOf(request: ApprovalRequest, draft: EditDraft): { edit?: CallEdit; problems: EditProblem[] } {
  if (draft.argumentsText !== undefined && draft.argumentsText !== prettyJson(request.arguments)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(draft.argumentsText);
    } catch (error) {
      return { problems: [{ field: '(arguments)', problem: `not JSON: ${(error as Error).message}; fix the text or reset it` }] };
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return { problems: [{ field: '(arguments)', problem: 'the arguments must be a JSON object ({ … })' }] };
    }
    return { edit: { arguments: parsed as Record<string, unknown> }, problems: [] };
  }
  const after = request.preview.kind === 'diff' ? request.preview.after : undefined;
  if (draft.content !== undefined && draft.content !== after) return { edit: { content: draft.content }, problems: [] };
  if (draft.rejectedHunks.length > 0) return { edit: { rejectedHunks: [...draft.rejectedHunks].sort((a, b) => a - b) }, problems: [] };
  return { problems: [] };
}

/**
 * Holds a prompt's edit and has the gate check it as it is typed, with the gate's own validator
 * (schema, paths, policy): the console never decides alone whether an edit may run.
 */
export function useCallEdit(request: ApprovalRequest): CallEditing {
  const sync = useConsoleSync();
  const [draft, setDraft] = useState<EditDraft>({ rejectedHunks: [] });
  const [verdict, setVerdict] = useState<{ key: string; check: EditCheck }>();
  const latest = useRef(0);
  const local = useMemo(() => editOf(request, draft), [request, draft]);
  const key = local.edit ? JSON.stringify(local.edit) : undefined;

  useEffect(() => {
    if (!local.edit || key === undefined) return;
    const asked = ++latest.current;
    const edit = local.edit;
    const timer = setTimeout(() => {
      sync
        .checkEdit({ approvalId: request.approvalId, edit })
        .then(
          (check) => check,
          (error: unknown): EditCheck => ({ problems: [{ field: '(edit)', problem: describe(error) }] }),
        )
        .then((check) => {
          if (asked === latest.current) setVerdict({ key, check });
        });
    }, CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [sync, request.approvalId, key, local.edit]);

  const edited = local.edit !== undefined;
  useEffect(() => {
    markEditing(request.approvalId, edited);
    return () => markEditing(request.approvalId, false);
  }, [request.approvalId, edited]);

  const check = verdict && verdict.key === key ? verdict.check : undefined;
  const problems = local.problems.length > 0 ? local.problems : (check?.problems ?? []);
  const first = problems[0];
  const fields = [...new Set(problems.map(({ field }) => field))];
  const blockedBy = first ? `fix ${fields.join(', ')} (see the edit above)` : local.edit && !check ? 'the gate is still checking the edit' : undefined;
  return {
    draft,
    setDraft,
    reset: () => setDraft({ rejectedHunks: [] }),
    edit: local.edit,
    problems,
    check,
    blockedBy,
    diff: diffEditingOf(request, draft, setDraft),
  };
}
