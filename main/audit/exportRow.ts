import type { AuditRecord } from '../../shared/audit';
import type { CallOutcome, CallRow } from '../../shared/explorer';
import { snapshotFromAudit } from '../executor/callHistory';

/** At most this many characters of arguments in a row's brief. */
const BRIEF_CHARS = 200;

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function outcomeOf(records: readonly AuditRecord[]): CallOutcome {
  const end = records.find((record) => record.kind === 'completed' || record.kind === 'failed' || record.kind === 'rejected' || record.kind === 'interrupted');
  return end ? (end.kind as CallOutcome) : 'open';
}

/**
 * One call's explorer row from its own records, oldest first (undefined without a readable
 * `invoked` record). The streaming exporter uses it when a call ends, without the explorer's index.
 */
export function rowFromRecords(records: readonly AuditRecord[]): CallRow | undefined {
  const snapshot = snapshotFromAudit(records);
  const first = records[0];
  const last = records.at(-1);
  if (!snapshot || !first || !last) return undefined;
  const policy = (records.find((record) => record.kind === 'policy')?.payload ?? {}) as Record<string, unknown>;
  const decision = text(policy.decision);
  const rule = text(policy.rule);
  const tier = rule?.match(/^tier:([A-Z]+)/)?.[1];
  const argsBrief = JSON.stringify(snapshot.arguments ?? {}) ?? '';
  const agent = snapshot.agent ? `${snapshot.agent.client} ${snapshot.agent.version}`.trim() : undefined;
  return {
    callId: snapshot.callId,
    seq: first.seq,
    lastSeq: last.seq,
    time: snapshot.startedAt,
    tool: snapshot.tool,
    ...(agent ? { agent } : {}),
    ...(snapshot.agentSession ? { session: snapshot.agentSession } : {}),
    source: snapshot.source,
    ...(tier ? { tier } : {}),
    argsBrief: argsBrief.length > BRIEF_CHARS ? `${argsBrief.slice(0, BRIEF_CHARS - 1)}…` : argsBrief,
    ...(decision === 'allow' || decision === 'ask' || decision === 'deny' ? { decision } : {}),
    ...(snapshot.decidedBy ? { decider: snapshot.decidedBy.by, decidedDetail: snapshot.decidedBy.detail } : {}),
    ...(rule ? { rule } : {}),
    outcome: outcomeOf(records),
    ...(snapshot.error ? { errorCode: snapshot.error.code } : {}),
    ...(snapshot.waitedMs !== undefined ? { waitedMs: snapshot.waitedMs } : {}),
    ...(snapshot.ranMs !== undefined ? { ranMs: snapshot.ranMs } : {}),
    ...(snapshot.durationMs !== undefined ? { durationMs: snapshot.durationMs } : {}),
  };
}
