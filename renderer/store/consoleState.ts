import type { ApprovalRequest } from '../../shared/approval';
import type { AuditRecord, AuditVerifyReport } from '../../shared/audit';
import type { CallSnapshot } from '../../shared/call';
import type { GateInfo } from '../../shared/contract';
import type { ToolStatus } from '../../shared/health';
import type { ConnectionState } from '../bridge/connectionState';

/** How many calls the Live view keeps; older ones drop off (the audit log keeps everything). */
export const CALLS_CAP = 500;
/** How many audit records the console keeps in memory. */
export const AUDIT_CAP = 500;

/** Calls by id, with their display order (newest first). */
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
  /** Latest audit records, newest (highest seq) first. */
  readonly audit: readonly AuditRecord[];
  /** The chain check. */
  readonly verify: VerifyState;
  /** Why the latest snapshot load failed, if it did. */
  readonly loadError: string | undefined;
}

/** The state before anything was loaded. */
export function initialConsoleState(connection: ConnectionState): ConsoleState {
  return {
    connection,
    info: undefined,
    tools: [],
    calls: { byId: {}, order: [] },
    approvals: [],
    audit: [],
    verify: { report: undefined, stale: false, running: false, error: undefined },
    loadError: undefined,
  };
}
