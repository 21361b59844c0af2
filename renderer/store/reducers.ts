import { saysAgentLeft } from '../../shared/agentLeft';
import type { ApprovalOutcome, ApprovalRequest } from '../../shared/approval';
import type { AuditRecord } from '../../shared/audit';
import type { CallSnapshot, CallStatus } from '../../shared/call';
import { LEFT_PROMPTS_SHOWN, type CallsState, type LeftPrompt } from './consoleState';

// How far along the pipeline a status is; a snapshot never moves a call backwards.
const STATUS_PROGRESS: Record<CallStatus, number> = {
  checking: 0,
  'awaiting-approval': 1,
  running: 2,
  completed: 3,
  rejected: 3,
  failed: 3,
};

function startedAtMs(call: CallSnapshot): number {
  const ms = Date.parse(call.startedAt);
  return Number.isNaN(ms) ? 0 : ms;
}

function capCalls(byId: Record<string, CallSnapshot>, order: string[], cap: number): CallsState {
  for (const dropped of order.splice(cap)) delete byId[dropped];
  return { byId, order };
}

/** Applies one callUpdated event: a known call is replaced in place, a new one goes on top. */
export function upsertCall(calls: CallsState, call: CallSnapshot, cap: number): CallsState {
  const byId = { ...calls.byId, [call.callId]: call };
  if (calls.byId[call.callId]) return { byId, order: [...calls.order] };
  return capCalls(byId, [call.callId, ...calls.order], cap);
}

/**
 * Applies a frame's callUpdated events at once. The calls by id are updated in place and shared
 * with the state before (copying 100,000 of them each frame would take about 100 ms); the order is
 * a new array, so the new state is a new object all the same.
 */
export function upsertCalls(calls: CallsState, updates: readonly CallSnapshot[], cap: number): CallsState {
  if (updates.length === 0) return calls;
  const byId = calls.byId as Record<string, CallSnapshot>;
  const added: string[] = [];
  for (const call of updates) {
    if (!byId[call.callId]) added.push(call.callId);
    byId[call.callId] = call;
  }
  return capCalls(byId, [...added.reverse(), ...calls.order], cap);
}

/**
 * Merges a listCalls snapshot into what events already delivered. The snapshot wins, except where
 * an event already showed the call further along (an event that overtook the snapshot's reply).
 */
export function mergeCallSnapshot(calls: CallsState, snapshot: readonly CallSnapshot[], cap: number): CallsState {
  const byId: Record<string, CallSnapshot> = { ...calls.byId };
  for (const call of snapshot) {
    const known = byId[call.callId];
    if (!known || STATUS_PROGRESS[call.status] >= STATUS_PROGRESS[known.status]) byId[call.callId] = call;
  }
  const seenAt = new Map(calls.order.map((id, index) => [id, index]));
  // Each start parsed once: the list may hold 100,000 calls.
  const startedAt = new Map(Object.values(byId).map((call) => [call.callId, startedAtMs(call)]));
  const order = Object.keys(byId).sort((a, b) => {
    const byTime = startedAt.get(b)! - startedAt.get(a)!;
    return byTime !== 0 ? byTime : (seenAt.get(a) ?? -1) - (seenAt.get(b) ?? -1);
  });
  return capCalls(byId, order, cap);
}

/** The calls in display order. */
export function callsInOrder(calls: CallsState): CallSnapshot[] {
  return calls.order.map((id) => calls.byId[id]).filter((call): call is CallSnapshot => call !== undefined);
}

function expiryMs(request: ApprovalRequest): number {
  return Date.parse(request.expiresAt);
}

function byExpiry(a: ApprovalRequest, b: ApprovalRequest): number {
  return expiryMs(a) - expiryMs(b);
}

/** Adds (or replaces) a pending prompt, keeping the one that expires first on top. */
export function addApproval(pending: readonly ApprovalRequest[], request: ApprovalRequest): ApprovalRequest[] {
  return [...pending.filter((p) => p.approvalId !== request.approvalId), request].sort(byExpiry);
}

/**
 * Applies a frame's prompt events at once: drops the resolved ones, adds the new ones in expiry
 * order. Linear in the prompts held (plus sorting the new ones), so a flood stays cheap.
 */
export function applyApprovalChanges(
  pending: readonly ApprovalRequest[],
  added: readonly ApprovalRequest[],
  removedIds: ReadonlySet<string>,
): readonly ApprovalRequest[] {
  if (added.length === 0 && removedIds.size === 0) return pending;
  const addedIds = new Set(added.map((request) => request.approvalId));
  const kept = pending.filter((p) => !removedIds.has(p.approvalId) && !addedIds.has(p.approvalId));
  const incoming = added
    .filter((p) => !removedIds.has(p.approvalId))
    .map((request) => ({ request, expires: expiryMs(request) }))
    .sort((a, b) => a.expires - b.expires);
  // Each new prompt finds its place by binary search; the held ones are copied once.
  const merged: ApprovalRequest[] = [];
  let from = 0;
  for (const { request, expires } of incoming) {
    let low = from;
    let high = kept.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (expiryMs(kept[middle]!) <= expires) low = middle + 1;
      else high = middle;
    }
    while (from < low) merged.push(kept[from++]!);
    merged.push(request);
  }
  while (from < kept.length) merged.push(kept[from++]!);
  return merged;
}

/** Removes a prompt that was answered or expired. */
export function removeApproval(pending: readonly ApprovalRequest[], approvalId: string): ApprovalRequest[] {
  return pending.filter((p) => p.approvalId !== approvalId);
}

/** Replaces the pending prompts with a listApprovals snapshot (each prompt once), minus prompts already known resolved. */
export function replaceApprovals(
  snapshot: readonly ApprovalRequest[],
  resolvedIds: ReadonlySet<string>,
): ApprovalRequest[] {
  const byId = new Map<string, ApprovalRequest>();
  for (const request of snapshot) if (!resolvedIds.has(request.approvalId)) byId.set(request.approvalId, request);
  return [...byId.values()].sort(byExpiry);
}

/** Adds one appended record (newest first); a record already held is ignored. */
export function prependAuditRecord(records: readonly AuditRecord[], record: AuditRecord, cap: number): AuditRecord[] {
  return mergeAuditRecords(records, [record], cap);
}

/** Unites held records with a listAudit snapshot, by seq, newest first. */
export function mergeAuditRecords(
  records: readonly AuditRecord[],
  incoming: readonly AuditRecord[],
  cap: number,
): AuditRecord[] {
  const bySeq = new Map<number, AuditRecord>();
  for (const record of records) bySeq.set(record.seq, record);
  for (const record of incoming) bySeq.set(record.seq, record);
  return [...bySeq.values()].sort((a, b) => b.seq - a.seq).slice(0, cap);
}

/**
 * Notes the prompts of a frame's outcomes that were withdrawn because their agent left (newest
 * first, at most LEFT_PROMPTS_SHOWN), named by the tool their card showed; other outcomes change nothing.
 */
export function noteLeftPrompts(left: readonly LeftPrompt[], outcomes: readonly ApprovalOutcome[], pending: readonly ApprovalRequest[]): readonly LeftPrompt[] {
  const gone = outcomes.filter((outcome) => outcome.outcome === 'withdrawn' && saysAgentLeft(outcome.reason));
  if (gone.length === 0) return left;
  const toolOf = new Map(pending.map((request) => [request.approvalId, request.tool]));
  const noted = gone.reverse().map((outcome) => ({
    approvalId: outcome.approvalId,
    callId: outcome.callId,
    tool: toolOf.get(outcome.approvalId) ?? 'a call',
    reason: outcome.reason!,
  }));
  return [...noted, ...left].slice(0, LEFT_PROMPTS_SHOWN);
}
