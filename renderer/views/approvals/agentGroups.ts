import type { ApprovalRequest } from '../../../shared/approval';

/** The prompts of one agent session (or of calls that came with none), oldest first. */
export interface AgentGroup {
  /** The agent session, absent for calls that came with no session (hooks, scripts). */
  readonly agentSession: string | undefined;
  /** Its prompts, oldest first. */
  readonly prompts: readonly ApprovalRequest[];
}

/** One row of the windowed list: an agent's header, or one of its prompts. */
export type ApprovalRow = { readonly kind: 'agent'; readonly group: AgentGroup } | { readonly kind: 'prompt'; readonly request: ApprovalRequest };

/**
 * Prompts grouped by the agent session that asked, oldest first within each group, and the groups
 * in the order of their oldest prompt, so whoever has waited longest is on top.
 */
export function groupByAgent(approvals: readonly ApprovalRequest[]): AgentGroup[] {
  const bySession = new Map<string | undefined, ApprovalRequest[]>();
  // ISO 8601 times in UTC sort as text; the sort is stable, so prompts asked in the same millisecond keep the gate's order.
  const oldestFirst = [...approvals].sort((a, b) => (a.requestedAt < b.requestedAt ? -1 : a.requestedAt > b.requestedAt ? 1 : 0));
  for (const request of oldestFirst) {
    const prompts = bySession.get(request.agentSession);
    if (prompts) prompts.push(request);
    else bySession.set(request.agentSession, [request]);
  }
  return [...bySession].map(([agentSession, prompts]) => ({ agentSession, prompts }));
}

/**
 * The rows the list draws: each group's header, then its prompts. A lone prompt has nothing to
 * group with and no header: "Approve all 1" and "Deny all" would only repeat its own Approve and Deny.
 */
export function rowsOf(groups: readonly AgentGroup[]): ApprovalRow[] {
  const lone = groups.length === 1 && groups[0]!.prompts.length === 1;
  return groups.flatMap((group): ApprovalRow[] => [
    ...(lone ? [] : [{ kind: 'agent' as const, group }]),
    ...group.prompts.map((request) => ({ kind: 'prompt' as const, request })),
  ]);
}

/**
 * What "Approve all" of a group would approve: every one of its prompts, but only when each has
 * been shown in full to the person; otherwise undefined (a prompt that arrived unseen holds the
 * whole group back, so the button never approves what nobody looked at).
 */
export function approvableBatch(group: AgentGroup, shownInFull: ReadonlySet<string>): readonly ApprovalRequest[] | undefined {
  if (group.prompts.length === 0) return undefined;
  return group.prompts.every((request) => shownInFull.has(request.approvalId)) ? group.prompts : undefined;
}

/** For each row, the index of its group's header row (a header's own index for a header; undefined without one). */
export function headerOfEachRow(rows: readonly ApprovalRow[]): Array<number | undefined> {
  let header: number | undefined;
  return rows.map((row, index) => (row.kind === 'agent' ? (header = index) : header));
}
