import type { ApprovalRequest } from '../../shared/approval';
import type { AuditRecord, AuditVerifyReport } from '../../shared/audit';
import type { CallSnapshot } from '../../shared/call';
import type { GateInfo } from '../../shared/contract';
import type { ToolStatus } from '../../shared/health';
import type { ConnectionState } from '../bridge/connectionState';

/** The console's views, in tab order. */
export const TAB_NAMES = ['Live', 'Approvals', 'Permissions', 'Audit', 'Tools', 'Memory', 'Settings'] as const;
export type TabName = (typeof TAB_NAMES)[number];

/** What the person is looking at: a tab, and the prompt or call a link led to. */
export interface ConsoleView {
  /** The tab shown. */
  readonly tab: TabName;
  /** The prompt a link or a notification opened: Approvals scrolls to it and focuses it. */
  readonly openedApprovalId: string | undefined;
  /** Counts openings, so opening the same prompt again scrolls to it again. */
  readonly openings: number;
  /** The call whose audit trail the Audit view shows (absent: the latest records of every call). */
  readonly auditCallId: string | undefined;
}

/** The records of one call, for the Audit view's trail. */
export interface AuditTrail {
  /** The call. */
  readonly callId: string;
  /** Its records, newest first; undefined while they load. */
  readonly records: readonly AuditRecord[] | undefined;
  /** Why they could not be loaded. */
  readonly error: string | undefined;
}

/**
 * How many calls the Live view keeps; older ones drop off (the audit explorer has every call). The
 * gate sends the latest 500 on (re)connecting; the rest gather from its events. At a hundred calls
 * a second that is the last hundred seconds, and what each frame does with the list (a new order,
 * the windowed list's offsets) stays well under a millisecond.
 */
export const CALLS_CAP = 10_000;
/** How many audit records the console keeps in memory. */
export const AUDIT_CAP = 500;

/**
 * Calls by id, with their display order (newest first). `byId` is shared from one state to the next
 * (upsertCalls updates it in place): it always holds each call's latest snapshot.
 */
export interface CallsState {
  readonly byId: Readonly<Record<string, CallSnapshot>>;
  readonly order: readonly string[];
}

/** The chain check as the Audit view shows it. */
export interface VerifyState {
  /** The latest report, once one arrived. */
  readonly report: AuditVerifyReport | undefined;
  /** Records were appended after the report was made. */
  readonly stale: boolean;
  /** A check is under way. */
  readonly running: boolean;
  /** Why the latest check could not be made. */
  readonly error: string | undefined;
}

/** A prompt withdrawn because its agent left: its card is gone, and the Approvals view says why. */
export interface LeftPrompt {
  readonly approvalId: string;
  readonly callId: string;
  /** The tool the call was for (as the card named it). */
  readonly tool: string;
  /** The gate's reason: "the agent left: …" and how it noticed. */
  readonly reason: string;
}

/** How many withdrawn prompts the Approvals view names at once (newest first). */
export const LEFT_PROMPTS_SHOWN = 5;

/** Everything the console shows; written only by ConsoleSync, read by the views. */
export interface ConsoleState {
  /** The link to the gate. */
  readonly connection: ConnectionState;
  /** Header facts, once loaded. */
  readonly info: GateInfo | undefined;
  /** Registered tools with their health and effective tier, sorted by name. */
  readonly tools: readonly ToolStatus[];
  /** Calls, newest first. */
  readonly calls: CallsState;
  /** Prompts waiting for a person, the one that expires first on top. */
  readonly approvals: readonly ApprovalRequest[];
  /** Prompts lately withdrawn because their agent left, newest first, until the person dismisses them. */
  readonly leftPrompts: readonly LeftPrompt[];
  /** Latest audit records, newest (highest seq) first. */
  readonly audit: readonly AuditRecord[];
  /** The chain check. */
  readonly verify: VerifyState;
  /** Why the latest snapshot load failed, if it did. */
  readonly loadError: string | undefined;
  /** What the person is looking at. */
  readonly view: ConsoleView;
  /** The audit trail of the call the Audit view is filtered to, if it is. */
  readonly auditTrail: AuditTrail | undefined;
}

/** The state before anything was loaded. */
export function initialConsoleState(connection: ConnectionState, tab: TabName = 'Live'): ConsoleState {
  return {
    connection,
    info: undefined,
    tools: [],
    calls: { byId: {}, order: [] },
    approvals: [],
    leftPrompts: [],
    audit: [],
    verify: { report: undefined, stale: false, running: false, error: undefined },
    loadError: undefined,
    view: { tab, openedApprovalId: undefined, openings: 0, auditCallId: undefined },
    auditTrail: undefined,
  };
}
