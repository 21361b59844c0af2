import type { CallEdit, EditCheck, EditSummary, Preview } from '../../shared/approval';
import { canonicalize } from '../../shared/canonicalJson';
import { GateError } from '../../shared/errors';
import { hashCanonical } from '../../shared/hash';
import { tierLevel, type Capability, type ToolManifest } from '../../shared/manifest';
import type { ToolProcessPool } from '../hosts/toolProcessPool';
import type { RegisteredTool } from '../registry/registry';
import { callTier, decideCall, type Policy, type PolicyDecision } from '../policy/tierPolicy';
import { placeholderFor, placeholdersIn } from '../secrets/placeholders';
import type { SecretProvider } from '../secrets/secretProvider';
import { admitArguments } from '../executor/steps/admitArguments';
import { checkCapabilities } from '../executor/steps/checkCapabilities';
import { preparePreview } from '../executor/steps/preparePreview';
import { askForSecrets, resolveSecrets, type ResolvedInput } from '../executor/steps/resolveSecrets';
import { StepFailure } from '../executor/steps/stepFailure';
import { validateInput } from '../executor/steps/validateInput';
import { describeChanges, editedArguments, type EditBase, type EditProblem } from './editedArguments';

/** What checking an edit needs from the gate. */
export interface ReviserDeps {
  readonly pool: ToolProcessPool;
  readonly policy: Policy;
  readonly secrets: SecretProvider;
  readonly grants: readonly Capability[];
  /** Real path of the workspace root. */
  readonly workspace: string;
}

/** The prompt's call, whole, as an edit starts from it. */
export interface RevisionSubject extends EditBase {
  readonly callId: string;
  readonly entry: RegisteredTool;
  /** The manifest the call was judged with (its tier raised where tools run without a sandbox). */
  readonly judgedManifest: ToolManifest;
  /** Names of the secrets the call receives. */
  readonly secrets: readonly string[];
  readonly agentSession?: string;
}

/** An edited call the person approved: what runs instead of the agent's. */
export interface RevisedCall {
  /** The edited arguments, validated (placeholders unresolved). */
  readonly input: unknown;
  /** The same with its secrets put in: what the tool receives. */
  readonly resolved: ResolvedInput;
  /** What the edit changed. */
  readonly summary: EditSummary;
  /** How the policy judged the edited call. */
  readonly policy: PolicyDecision;
  /** Hash of the edited call's preview: the call runs only if the target is still as previewed. */
  readonly previewHash?: string;
  /** Why the call may not run after all (the target changed since the prompt was shown): it is refused with this. */
  readonly stale?: string;
}

type Judged = { problems: EditProblem[] } | { input: unknown; resolved: ResolvedInput; summary: EditSummary; policy: PolicyDecision };

function problemOf(failure: StepFailure, fallbackField: string): EditProblem {
  const details = failure.error.details as { argument?: unknown; field?: unknown } | undefined;
  const field = typeof details?.argument === 'string' ? details.argument : typeof details?.field === 'string' ? details.field : fallbackField;
  return { field, problem: failure.error.message };
}

/** The top-level arguments the edit changed. */
function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((field) => canonicalize(before[field] ?? null) !== canonicalize(after[field] ?? null) || Object.hasOwn(before, field) !== Object.hasOwn(after, field));
}

/**
 * Judges an edited call as the pipeline judges a call, and more strictly: the edit may not widen
 * what was asked. Beyond schema, capabilities (workspace confinement, protected paths, net grants)
 * and policy (a deny rule refuses the edit with its reason), it refuses an edit that raises the
 * call's tier through an escalation, gives it a `$ENV.` placeholder the argument did not hold,
 * or, when the call receives secrets, sends them to another origin. The tool is never changed.
 * An ask decision stands approved: the person approving the edit is the person it asks for.
 */
async function judgeEdit(deps: ReviserDeps, subject: RevisionSubject, edit: CallEdit): Promise<Judged> {
  const built = editedArguments(subject, edit);
  if ('problems' in built) return built;
  const args = built.arguments;
  if (canonicalize(args) === canonicalize(subject.input)) {
    return { problems: [{ field: '(arguments)', problem: 'the edit changes nothing: choose Approve to run the call as it is' }] };
  }
  const admitted = admitArguments(args);
  if ('refusal' in admitted) return { problems: [problemOf(admitted.refusal, '(arguments)')] };
  const input = validateInput(subject.entry, args);
  if (input instanceof StepFailure) {
    const fields = ((input.error.details as { fields?: EditProblem[] } | undefined)?.fields ?? []).map(({ field, problem }) => ({ field, problem }));
    return { problems: fields.length > 0 ? fields : [problemOf(input, '(arguments)')] };
  }
  const edited = input as Record<string, unknown>;
  const changed = changedFields(subject.input, edited);
  const problems = wideningProblems(subject, edited, changed);
  if (problems.length > 0) return { problems };
  const { manifest } = subject.entry.tool;
  const pathOrUrl = changed.find((field) => manifest.pathArguments.includes(field) || manifest.urlArguments?.includes(field)) ?? '(arguments)';
  const capability = checkCapabilities(manifest, edited, deps.grants, deps.workspace);
  if (capability instanceof StepFailure) return { problems: [problemOf(capability, pathOrUrl)] };
  const resolved = await resolveSecrets(subject.entry, edited, deps.secrets);
  if (resolved instanceof StepFailure) return { problems: [problemOf(resolved, '(arguments)')] };
  const decided = await decideCall(deps.policy, subject.judgedManifest, edited, { agentSession: subject.agentSession });
  const policy = askForSecrets(decided, manifest.name, resolved.secrets);
  if (policy.decision === 'deny') {
    return { problems: [{ field: pathOrUrl, problem: `the edited call is denied by policy: ${policy.reason}` }] };
  }
  return { input, resolved, summary: describeChanges(subject.input, edited, built.rejectedHunks), policy };
}

/** What an edit may not do that the pipeline alone would let through. */
function wideningProblems(subject: RevisionSubject, edited: Record<string, unknown>, changed: readonly string[]): EditProblem[] {
  const problems: EditProblem[] = [];
  for (const field of changed) {
    const had = new Set(placeholdersIn(subject.input[field]));
    const added = placeholdersIn(edited[field]).filter((name) => !had.has(name));
    if (added.length > 0) {
      problems.push({
        field,
        problem: `holds ${added.map(placeholderFor).join(', ')}, which the call did not send in this argument; an edit may not give a call secrets or move them: deny the call instead`,
      });
    }
  }
  const was = callTier(subject.judgedManifest, subject.input);
  const now = callTier(subject.judgedManifest, edited);
  if (tierLevel(now.tier) > tierLevel(was.tier)) {
    for (const escalation of now.escalations) {
      problems.push({
        field: escalation.argument,
        problem: `${JSON.stringify(escalation.equals)} raises the call from ${was.tier} to ${now.tier} (${escalation.reason}); an edit may not ask for more than the agent did`,
      });
    }
  }
  if (subject.secrets.length > 0) {
    for (const field of subject.entry.tool.manifest.urlArguments ?? []) {
      if (!changed.includes(field)) continue;
      const before = subject.input[field];
      const after = edited[field];
      const origin = (url: unknown) => (typeof url === 'string' && URL.canParse(url) ? new URL(url).origin : undefined);
      if (origin(before) !== origin(after)) {
        problems.push({ field, problem: `the call sends secrets to ${origin(before) ?? 'its host'}; an edit may not send them to another host` });
      }
    }
  }
  return problems;
}

/** The gate's verdict on an edit as it is typed: problems by field, or what it changes and how policy judges it. */
export async function checkEdit(deps: ReviserDeps, subject: RevisionSubject, edit: CallEdit): Promise<EditCheck> {
  const judged = await judgeEdit(deps, subject, edit);
  if ('problems' in judged) return { problems: judged.problems };
  const { decision, rule, reason } = judged.policy;
  return { problems: [], summary: judged.summary, policy: { decision, rule, reason } };
}

/**
 * Checks an edit again (nothing the console checked is trusted) and previews the edited call: the
 * approval is bound to that preview, so the call runs only if its target is still as previewed.
 * An edit of a file whose content changed since the prompt was shown is marked stale (the call is
 * refused, as the preview check refuses an unedited one); one that moves a write onto an existing
 * file the person was never shown is refused. Throws a GateError naming every problem.
 */
export async function reviseCall(deps: ReviserDeps, subject: RevisionSubject, edit: CallEdit): Promise<RevisedCall> {
  const judged = await judgeEdit(deps, subject, edit);
  if ('problems' in judged) {
    const denied = judged.problems.some(({ problem }) => problem.includes('denied by policy'));
    throw new GateError(
      denied ? 'EDENIED' : 'EVALIDATION',
      `the edited call was not approved: ${judged.problems.map(({ field, problem }) => `${field}: ${problem}`).join('; ')}`,
      { problems: judged.problems },
    );
  }
  // A tool that runs outside the tool processes (upstream, or served by the gate) previews as its unedited call did.
  const { external } = subject.entry;
  const preview = external ? await external.preview(judged.input) : await preparePreview(deps.pool, subject.entry, judged.input, subject.callId, deps.workspace);
  if (preview instanceof StepFailure) throw new GateError(preview.error.code, `the edited call was not approved: ${preview.error.message}`);
  const stale = staleness(subject.preview, preview);
  return { ...judged, ...(preview.kind === 'none' ? {} : { previewHash: hashCanonical(preview) }), ...(stale ? { stale } : {}) };
}

/** Why the edited call's preview is not what the person edited from, if it is not. */
function staleness(shown: Preview, edited: Preview): string | undefined {
  if (shown.kind !== 'diff' || edited.kind !== 'diff') return undefined;
  if (edited.path !== shown.path) {
    if (!edited.exists) return undefined;
    throw new GateError(
      'EVALIDATION',
      `the edited call was not approved: path: ${edited.path} already exists and you were not shown its content; approving would replace what you have not seen: deny the call instead`,
      { problems: [{ field: 'path', problem: `${edited.path} already exists and its content was not shown` }] },
    );
  }
  if (edited.before === shown.before && edited.exists === shown.exists) return undefined;
  return `${edited.path} changed on disk after the prompt was shown, so the edit was made from an older text; nothing was done, call it again to get a new prompt`;
}

/** The call as an edit starts from it; undefined when its arguments are not an object (nothing to edit). */
export function revisionSubject(
  run: { callId: string; agentSession?: string | undefined },
  entry: RegisteredTool,
  input: unknown,
  shown: unknown,
  preview: Preview,
  judgedManifest: ToolManifest,
  secrets: readonly string[],
): RevisionSubject | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  return {
    callId: run.callId,
    tool: entry.tool.manifest.name,
    entry,
    judgedManifest,
    input: input as Record<string, unknown>,
    shown,
    preview,
    secrets,
    ...(run.agentSession ? { agentSession: run.agentSession } : {}),
  };
}
