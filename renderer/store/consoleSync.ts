import type { ApprovalDecision, ApprovalOutcome } from '../../shared/approval';
import type { ConsoleBridge } from '../../shared/contract';
import type { ConnectionState } from '../bridge/connectionState';
import { CallOutputs } from './callOutputs';
import type { ConsoleStore } from './consoleStore';
import { AUDIT_CAP, CALLS_CAP } from './consoleState';
import { DraftReasons } from './draftReasons';
import {
  addApproval,
  mergeAuditRecords,
  mergeCallSnapshot,
  prependAuditRecord,
  removeApproval,
  replaceApprovals,
  upsertCall,
} from './reducers';
import { mergeToolSnapshot } from './toolStatuses';

/** A connection whose state the sync follows (the WebSocket bridge has one; IPC does not). */
export interface ConnectionSource {
  readonly state: ConnectionState;
  onStateChange(listener: (state: ConnectionState) => void): () => void;
}

/** How long appends are gathered before the chain is checked again. */
export const VERIFY_DEBOUNCE_MS = 300;
/** How many audit records a snapshot loads. */
const AUDIT_SNAPSHOT_LIMIT = 200;
// Remembered so a snapshot that raced an approvalResolved event cannot bring the prompt back.
const RESOLVED_MEMORY = 1_000;

/**
 * Keeps the store in step with the gate: loads every snapshot when the connection opens (again),
 * applies events in between, and re-checks the audit chain shortly after records are appended.
 */
export class ConsoleSync {
  private readonly unsubscribers: Array<() => void> = [];
  private readonly resolvedApprovalIds = new Set<string>();
  private verifyTimer: ReturnType<typeof setTimeout> | undefined;
  private auditGeneration = 0;
  private latestVerifyRequest = 0;
  private stopped = false;
  /** What running calls streamed (shell output), for the Live view's terminals. */
  readonly outputs = new CallOutputs();

  constructor(
    private readonly bridge: ConsoleBridge,
    private readonly store: ConsoleStore,
    private readonly connection?: ConnectionSource,
    /** Reasons typed into prompts and not sent yet; forgotten as their prompts resolve. */
    readonly drafts: DraftReasons = new DraftReasons(undefined),
  ) {}

  /** Subscribes to the events and loads the snapshots (now, or once the connection opens). */
  start(): void {
    const set = this.store.setState;
    this.unsubscribers.push(
      this.bridge.onCallUpdated((call) => set((s) => ({ calls: upsertCall(s.calls, call, CALLS_CAP) }))),
      this.bridge.onApprovalRequested((request) => {
        if (this.resolvedApprovalIds.has(request.approvalId)) return;
        set((s) => ({ approvals: addApproval(s.approvals, request) }));
      }),
      this.bridge.onApprovalResolved((outcome) => this.applyOutcome(outcome)),
      this.bridge.onAuditAppended((record) => {
        this.auditGeneration += 1;
        set((s) => ({
          audit: prependAuditRecord(s.audit, record, AUDIT_CAP),
          verify: { ...s.verify, stale: true },
        }));
        this.scheduleVerify();
      }),
      this.bridge.onCallOutput(({ callId, chunk }) => this.outputs.append(callId, chunk)),
      // The event carries every tool, newer than any snapshot in flight: it replaces the list.
      this.bridge.onToolsChanged((tools) => set({ tools })),
    );
    if (!this.connection) {
      void this.refreshSnapshots();
      return;
    }
    set({ connection: this.connection.state });
    this.unsubscribers.push(
      this.connection.onStateChange((state) => {
        set({ connection: state });
        if (state === 'open') void this.refreshSnapshots();
      }),
    );
    if (this.connection.state === 'open') void this.refreshSnapshots();
  }

  /** Stops listening; safe to call twice. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.verifyTimer);
    for (const unsubscribe of this.unsubscribers.splice(0)) unsubscribe();
  }

  /** Asks the gate to stop a call (withdraw its prompt, or kill its running tool); false when it had ended. */
  async stopCall(callId: string): Promise<boolean> {
    const { stopped } = await this.bridge.stopCall({ callId });
    return stopped;
  }

  /** Loads every snapshot; a failed one leaves its part as it was and says why in loadError. */
  async refreshSnapshots(): Promise<void> {
    const set = this.store.setState;
    const results = await Promise.allSettled([
      this.bridge.getInfo({}).then((info) => set({ info })),
      this.bridge.listTools({}).then((tools) => set((s) => ({ tools: mergeToolSnapshot(s.tools, tools) }))),
      this.bridge.listCalls({}).then((calls) => set((s) => ({ calls: mergeCallSnapshot(s.calls, calls, CALLS_CAP) }))),
      this.bridge
        .listApprovals({})
        .then((pending) => {
          set({ approvals: replaceApprovals(pending, this.resolvedApprovalIds) });
          this.drafts.keepOnly(pending.map((request) => request.approvalId));
        }),
      this.bridge
        .listAudit({ limit: AUDIT_SNAPSHOT_LIMIT })
        .then((records) => set((s) => ({ audit: mergeAuditRecords(s.audit, records, AUDIT_CAP) }))),
    ]);
    if (this.stopped) return;
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    set({ loadError: failure ? `Could not load the console: ${describe(failure.reason)}` : undefined });
    await this.verifyAudit();
  }

  /** Checks the whole audit chain now; re-checks if records were appended meanwhile. */
  async verifyAudit(): Promise<void> {
    clearTimeout(this.verifyTimer);
    this.verifyTimer = undefined;
    const generation = this.auditGeneration;
    const request = ++this.latestVerifyRequest;
    const set = this.store.setState;
    set((s) => ({ verify: { ...s.verify, running: true } }));
    try {
      const report = await this.bridge.verifyAudit({});
      // Only the newest check may speak: an older one finishing late would show a stale verdict.
      if (request !== this.latestVerifyRequest || this.stopped) return;
      const stale = generation !== this.auditGeneration;
      set({ verify: { report, stale, running: false, error: undefined } });
      if (stale) this.scheduleVerify();
    } catch (error) {
      if (request !== this.latestVerifyRequest || this.stopped) return;
      set((s) => ({ verify: { ...s.verify, running: false, error: describe(error) } }));
    }
  }

  /** Answers a prompt; rejects with the bridge's error (for the card to show) when the gate refuses. */
  async decideApproval(approvalId: string, decision: ApprovalDecision, reason: string): Promise<void> {
    const trimmed = reason.trim();
    const outcome = await this.bridge.decideApproval(
      trimmed ? { approvalId, decision, reason: trimmed } : { approvalId, decision },
    );
    this.applyOutcome(outcome);
  }

  private applyOutcome(outcome: ApprovalOutcome): void {
    this.resolvedApprovalIds.add(outcome.approvalId);
    this.drafts.forget(outcome.approvalId);
    if (this.resolvedApprovalIds.size > RESOLVED_MEMORY) {
      const oldest = this.resolvedApprovalIds.values().next().value;
      if (oldest !== undefined) this.resolvedApprovalIds.delete(oldest);
    }
    this.store.setState((s) => ({ approvals: removeApproval(s.approvals, outcome.approvalId) }));
  }

  private scheduleVerify(): void {
    if (this.stopped) return;
    clearTimeout(this.verifyTimer);
    this.verifyTimer = setTimeout(() => void this.verifyAudit(), VERIFY_DEBOUNCE_MS);
  }
}

/** A readable one-liner for an error from the bridge. */
export function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
