import { z } from 'zod';
import type { AuditRecord } from '../../shared/audit';
import { AgentInfoSchema, CallSourceSchema, type CallSnapshot } from '../../shared/call';
import { changedPathsOf, CallEffectsSchema } from '../../shared/effects';
import { ToolErrorSchema } from '../../shared/errors';
import { PolicyProvenanceSchema } from '../../shared/policy';
import { deciderOf, deciderOfOutcome } from '../policy/policyDecisions';
import { KEEP } from './callTracker';
import { shownOutput } from './steps/recordedArguments';

/**
 * How many calls of earlier gates the Live view is given at start: as many as it keeps (older ones
 * are in the Audit view).
 */
export const HISTORY_CALLS = KEEP;

/** Where the audit's records come from (the store, or a reader over it). */
export interface CallHistorySource {
  /** Ids of the calls most recently invoked, newest first, at most `limit`. */
  recentCallIds(limit: number): string[];
  /** Every record of one call, oldest first. */
  forCall(callId: string): AuditRecord[];
}

const InvokedSchema = z.object({
  tool: z.string(),
  source: CallSourceSchema.catch('test'),
  agentSession: z.string().optional(),
  // A malformed agent field (a record written elsewhere) leaves the call without a name, not out of Live and the explorer.
  agent: AgentInfoSchema.optional().catch(undefined),
  arguments: z.unknown(),
});
const EndedSchema = z.object({ step: z.string().optional(), error: ToolErrorSchema.optional(), responseHash: z.string().optional() });
const CompletedSchema = z.object({ responseHash: z.string().optional(), output: z.unknown(), truncated: z.boolean().optional() });
/** What an end record says the call changed (a record it cannot read as effects says nothing). */
const EndEffectsSchema = z.object({ effects: CallEffectsSchema.optional().catch(undefined) });
const DecidedSchema = z.object({
  outcome: z.enum(['approved', 'denied', 'expired', 'withdrawn']),
  reason: z.string().optional(),
  /** A person's edit: the arguments that ran instead of the agent's. */
  edit: z.object({ edited: z.unknown() }).optional().catch(undefined),
});
const InterruptedSchema = z.object({ reason: z.string().catch('the gate stopped before this call ended'), lastStep: z.string().optional() });

/** What deciderOf reads of a `policy` record: its rule, and whether a written rule decided. */
const PolicyRecordSchema = z.object({ rule: z.string(), provenance: PolicyProvenanceSchema.optional().catch(undefined) });

/** The records that end a call. */
const ENDS = ['completed', 'failed', 'rejected', 'interrupted'] as const;

function between(from: AuditRecord | undefined, to: AuditRecord | undefined): number | undefined {
  if (!from || !to) return undefined;
  const ms = Date.parse(to.time) - Date.parse(from.time);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The call one audit trail tells of, as the Live view shows it; undefined without a readable `invoked` record. */
export function snapshotFromAudit(records: readonly AuditRecord[]): CallSnapshot | undefined {
  const find = (kind: AuditRecord['kind']) => records.find((record) => record.kind === kind);
  const invokedRecord = find('invoked');
  const invoked = InvokedSchema.safeParse(invokedRecord?.payload);
  if (!invokedRecord || !invoked.success) return undefined;
  const { tool, source, agentSession, agent, arguments: args } = invoked.data;
  let snapshot: CallSnapshot = {
    callId: invokedRecord.callId,
    tool,
    arguments: args,
    source,
    ...(agentSession ? { agentSession } : {}),
    ...(agent ? { agent } : {}),
    status: 'checking',
    step: 'invoked',
    startedAt: invokedRecord.time,
    beforeRestart: true,
  };
  const policy = PolicyRecordSchema.safeParse(find('policy')?.payload);
  if (policy.success) snapshot.decidedBy = deciderOf(policy.data);
  const asked = find('approval-requested');
  const decidedRecord = find('approval-decided');
  const decided = DecidedSchema.safeParse(decidedRecord?.payload);
  if (asked) {
    const approvalId = (asked.payload as { approvalId?: unknown } | null)?.approvalId;
    if (typeof approvalId === 'string') snapshot.approvalId = approvalId;
    snapshot.askedAt = asked.time;
  }
  if (decided.success) {
    const { outcome, reason, edit } = decided.data;
    // An edited call ran with the person's arguments: Live shows those, as it did before the restart.
    const edited = outcome === 'approved' && edit !== undefined;
    snapshot.decidedBy = deciderOfOutcome(outcome, reason, edited);
    if (edited) snapshot.arguments = edit.edited;
    const waitedMs = between(asked, decidedRecord);
    if (waitedMs !== undefined) snapshot.waitedMs = waitedMs;
  }
  const started = find('started');
  const end = records.find((record): record is AuditRecord & { kind: (typeof ENDS)[number] } => (ENDS as readonly string[]).includes(record.kind));
  if (!end) return snapshot;
  const ranMs = end.kind === 'rejected' ? undefined : between(started, end);
  const ended = EndEffectsSchema.safeParse(end.payload);
  snapshot = {
    ...snapshot,
    ...changedPathsOf(ended.success ? ended.data.effects : undefined),
    endedAt: end.time,
    ...(between(invokedRecord, end) !== undefined ? { durationMs: between(invokedRecord, end) } : {}),
    ...(ranMs !== undefined ? { ranMs } : {}),
  };
  if (end.kind === 'completed') {
    const completed = CompletedSchema.safeParse(end.payload);
    if (!completed.success) return { ...snapshot, status: 'completed', step: 'completed' };
    const { output, responseHash, truncated } = completed.data;
    return { ...snapshot, status: 'completed', step: 'completed', data: shownOutput(output), ...(responseHash ? { responseHash } : {}), ...(truncated ? { truncated } : {}) };
  }
  if (end.kind === 'interrupted') {
    const interrupted = InterruptedSchema.safeParse(end.payload);
    const reason = interrupted.success ? interrupted.data.reason : 'the gate stopped before this call ended';
    const lastStep = interrupted.success ? interrupted.data.lastStep : undefined;
    return { ...snapshot, status: 'failed', step: 'interrupted', error: { code: 'ECRASH', message: `${reason}${lastStep ? ` (last step: ${lastStep})` : ''}` } };
  }
  const endedWith = EndedSchema.safeParse(end.payload);
  return {
    ...snapshot,
    status: end.kind,
    step: endedWith.success && endedWith.data.step ? endedWith.data.step : end.kind,
    ...(endedWith.success && endedWith.data.error ? { error: endedWith.data.error } : {}),
    ...(endedWith.success && endedWith.data.responseHash ? { responseHash: endedWith.data.responseHash } : {}),
  };
}

/** The calls of earlier gates, newest first, at most `limit`, as read back from the audit. */
export function callsFromAudit(source: CallHistorySource, limit = HISTORY_CALLS): CallSnapshot[] {
  return source
    .recentCallIds(limit)
    .map((callId) => snapshotFromAudit(source.forCall(callId)))
    .filter((call): call is CallSnapshot => call !== undefined);
}
