import type { AuditRecord } from '../../shared/audit';
import type { CallOutcome, CallRow, Decider } from '../../shared/explorer';
import { snapshotFromAudit } from '../executor/callHistory';

/** The longest an argument brief gets, in characters. */
export const ARGS_BRIEF_CHARS = 200;

/** How much searchable text one record gives the full-text index at most (a huge output is searched by its head). */
export const SEARCH_TEXT_PER_RECORD = 16 * 1024;

/** One call as the index keeps it: its explorer row and the text it is found by. */
export interface CallSummary {
  row: CallRow;
  /** Arguments, outputs, reasons, error messages and paths, as plain text (string values, not JSON). */
  text: string;
}

const SECURITY_TIER = /^tier:([A-Z]+)/;

/** One line of at most ARGS_BRIEF_CHARS characters: the arguments as JSON, cut with an ellipsis. */
export function argsBrief(args: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(args) ?? '';
  } catch {
    text = String(args);
  }
  return text.length <= ARGS_BRIEF_CHARS ? text : `${text.slice(0, ARGS_BRIEF_CHARS - 1)}…`;
}

/** Appends the string and number values of a JSON value (not its keys or quoting) to `out`, at most `budget` characters. */
function collectText(value: unknown, out: string[], budget: { chars: number }): void {
  if (budget.chars <= 0 || value === null || value === undefined) return;
  if (typeof value === 'string') {
    const kept = value.length > budget.chars ? value.slice(0, budget.chars) : value;
    budget.chars -= kept.length;
    out.push(kept);
    return;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return;
  if (Array.isArray(value)) {
    for (const member of value) collectText(member, out, budget);
    return;
  }
  if (typeof value === 'object') for (const member of Object.values(value as Record<string, unknown>)) collectText(member, out, budget);
}

/** What of one record a person searches for: arguments, outputs, reasons, error messages, paths. */
function searchableParts(record: AuditRecord): unknown[] {
  const payload = (record.payload ?? {}) as Record<string, unknown>;
  switch (record.kind) {
    case 'invoked':
      return [payload.tool, payload.arguments];
    case 'policy':
      return [payload.rule, payload.reason];
    case 'approval-requested':
      return [payload.preview];
    case 'approval-decided':
      return [payload.reason, payload.tellAgent, (payload.edit as { edited?: unknown } | undefined)?.edited];
    case 'completed':
      return [payload.output];
    case 'failed':
    case 'rejected':
      return [payload.error];
    case 'interrupted':
      return [payload.reason];
    default:
      return [];
  }
}

/** The searchable text of a call's records, one record's text per line. */
export function searchText(records: readonly AuditRecord[]): string {
  const lines: string[] = [];
  for (const record of records) {
    const out: string[] = [];
    collectText(searchableParts(record), out, { chars: SEARCH_TEXT_PER_RECORD });
    if (out.length > 0) lines.push(out.join(' '));
  }
  return lines.join('\n');
}

/** The security tier the gate judged the call at: the policy record's `tier`, or for older records the tier rule that decided. */
function tierOf(policy: Record<string, unknown> | undefined): string | undefined {
  if (!policy) return undefined;
  if (typeof policy.tier === 'string') return policy.tier;
  const rule = typeof policy.rule === 'string' ? SECURITY_TIER.exec(policy.rule) : null;
  return rule?.[1];
}

function outcomeOf(status: string, step: string): CallOutcome {
  if (step === 'interrupted') return 'interrupted';
  if (status === 'completed' || status === 'failed' || status === 'rejected') return status;
  return 'open';
}

/**
 * One call summed up from its records, oldest first: the same reading as the Live view's
 * (snapshotFromAudit) for who decided, outcome and times, plus the policy's decision, rule and tier.
 * Undefined for records without a readable `invoked` record (e.g. an `anchor-accepted` record).
 */
export function summarizeCall(records: readonly AuditRecord[]): CallSummary | undefined {
  const snapshot = snapshotFromAudit(records);
  if (!snapshot) return undefined;
  const first = records[0]!;
  const last = records[records.length - 1]!;
  const policy = records.find((record) => record.kind === 'policy')?.payload as Record<string, unknown> | undefined;
  const decision = policy?.decision;
  const tier = tierOf(policy);
  const rule = typeof policy?.rule === 'string' ? policy.rule : undefined;
  const row: CallRow = {
    callId: snapshot.callId,
    seq: first.seq,
    lastSeq: last.seq,
    time: snapshot.startedAt,
    tool: snapshot.tool,
    ...(snapshot.agent ? { agent: snapshot.agent.client } : {}),
    ...(snapshot.agentSession ? { session: snapshot.agentSession } : {}),
    source: snapshot.source,
    ...(tier ? { tier } : {}),
    argsBrief: argsBrief(snapshot.arguments),
    ...(decision === 'allow' || decision === 'ask' || decision === 'deny' ? { decision } : {}),
    ...(snapshot.decidedBy ? { decider: snapshot.decidedBy.by as Decider, decidedDetail: snapshot.decidedBy.detail } : {}),
    ...(rule ? { rule } : {}),
    outcome: outcomeOf(snapshot.status, snapshot.step),
    ...(snapshot.error?.code ? { errorCode: snapshot.error.code } : {}),
    ...(snapshot.waitedMs !== undefined ? { waitedMs: snapshot.waitedMs } : {}),
    ...(snapshot.ranMs !== undefined ? { ranMs: snapshot.ranMs } : {}),
    ...(snapshot.durationMs !== undefined ? { durationMs: snapshot.durationMs } : {}),
  };
  return { row, text: searchText(records) };
}
