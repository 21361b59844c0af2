import type { ApprovalDecision, ApprovalOutcome, ApprovalRequest, CallEdit } from '../../shared/approval';
import type { AuditRecord } from '../../shared/audit';
import type { CallSnapshot } from '../../shared/call';
import type { BridgeRequest, BridgeResponse, ConsoleBridge } from '../../shared/contract';
import type { ApprovalScope } from '../../shared/permissions';
import type { ConnectionState } from '../bridge/connectionState';
import { CallOutputs } from './callOutputs';
import type { ConsoleStore } from './consoleStore';
import { AUDIT_CAP, CALLS_CAP, type TabName } from './consoleState';
import { DraftReasons } from './draftReasons';
import { animationFrameScheduler, EventBatch, type FrameScheduler } from './eventBatch';
import {
  applyApprovalChanges,
  mergeAuditRecords,
  mergeCallSnapshot,
  noteLeftPrompts,
  removeApproval,
  replaceApprovals,
  upsertCalls,
} from './reducers';
import { mergeToolSnapshot } from './toolStatuses';

/** A connection whose state the sync follows (the WebSocket bridge has one; IPC does not). */
export interface ConnectionSource {
  readonly state: ConnectionState;
  onStateChange(listener: (state: ConnectionState) => void): () => void;
}

/** How long appends are gathered before the chain is checked again. */
export const VERIFY_DEBOUNCE_MS = 300;
/**
 * While records keep coming, the chain is checked again at most this often: each check walks the
 * whole log in the gate, which a stream of calls would otherwise pay for every few hundred ms.
 */
export const VERIFY_MIN_INTERVAL_MS = 5_000;
/** How many audit records a snapshot loads. */
const AUDIT_SNAPSHOT_LIMIT = 200;
/** How many records of one call its audit trail loads (a call writes about ten). */
const AUDIT_TRAIL_LIMIT = 1000;
// Remembered so a snapshot that raced an approvalResolved event cannot bring the prompt back.
// Room for a whole flood of prompts denied at once.
const RESOLVED_MEMORY = 20_000;

/** A store-changing event, queued for the frame's batch. */
type StoreEvent =
  | { kind: 'call'; call: CallSnapshot }
  | { kind: 'requested'; request: ApprovalRequest }
  | { kind: 'resolved'; outcome: ApprovalOutcome }
  | { kind: 'audit'; record: AuditRecord };

/**
 * Keeps the store in step with the gate: loads every snapshot when the connection opens (again),
 * applies events in between, and re-checks the audit chain shortly after records are appended.
 */
export class ConsoleSync {
  private readonly unsubscribers: Array<() => void> = [];
  private readonly resolvedApprovalIds = new Set<string>();
  /** Per listApprovals snapshot on its way (loads may overlap): the prompts announced meanwhile, which it may not hold. */
  private readonly requestedDuringSnapshots = new Set<ApprovalRequest[]>();
  private verifyTimer: ReturnType<typeof setTimeout> | undefined;
  private auditGeneration = 0;
  private latestVerifyRequest = 0;
  /** When the latest check began (ms since the epoch), for VERIFY_MIN_INTERVAL_MS. */
  private lastVerifyStartedAt = 0;
  private stopped = false;
  /** What running calls streamed (shell output), for the Live view's terminals. */
  readonly outputs = new CallOutputs();
  private readonly batch: EventBatch<StoreEvent>;

  constructor(
    /** The gate's bridge; views that ask it directly (the audit explorer, export, replay) take it from here. */
    readonly bridge: ConsoleBridge,
    private readonly store: ConsoleStore,
    private readonly connection?: ConnectionSource,
    /** Reasons typed into prompts and not sent yet; forgotten as their prompts resolve. */
    readonly drafts: DraftReasons = new DraftReasons(undefined),
    /** When a frame's events are applied; the next animation frame in a browser, at once elsewhere. */
    schedule: FrameScheduler | undefined = animationFrameScheduler(),
  ) {
    this.batch = new EventBatch((events) => this.applyEvents(events), schedule);
  }

  /** Subscribes to the events and loads the snapshots (now, or once the connection opens). */
  start(): void {
    const set = this.store.setState;
    this.unsubscribers.push(
      this.bridge.onCallUpdated((call) => this.batch.push({ kind: 'call', call })),
      this.bridge.onApprovalRequested((request) => {
        if (this.resolvedApprovalIds.has(request.approvalId)) return;
        for (const announced of this.requestedDuringSnapshots) announced.push(request);
        this.batch.push({ kind: 'requested', request });
      }),
      this.bridge.onApprovalResolved((outcome) => {
        this.rememberResolved(outcome);
        this.batch.push({ kind: 'resolved', outcome });
      }),
      this.bridge.onAuditAppended((record) => {
        this.auditGeneration += 1;
        this.batch.push({ kind: 'audit', record });
        this.scheduleVerify();
      }),
      this.bridge.onCallOutput(({ callId, chunk }) => this.outputs.append(callId, chunk)),
      // The event carries every tool, newer than any snapshot in flight: it replaces the list.
      this.bridge.onToolsChanged((tools) => set({ tools })),
      // The person clicked the desktop's notification of a prompt.
      this.bridge.onOpenApproval(({ approvalId }) => this.openPrompt(approvalId)),
      // A policy file reloaded: its banner comes or goes without a new snapshot.
      this.bridge.onPolicyChanged((policy) => set((s) => (s.info ? { info: { ...s.info, policy } } : {}))),
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
    this.batch.stop();
    clearTimeout(this.verifyTimer);
    for (const unsubscribe of this.unsubscribers.splice(0)) unsubscribe();
  }

  /** Shows a tab. */
  showTab(tab: TabName): void {
    this.store.setState((s) => ({ view: { ...s.view, tab } }));
  }

  /** Shows a prompt: the Approvals tab, scrolled to its card (from a Live row's link or a notification). */
  openPrompt(approvalId: string): void {
    this.store.setState((s) => ({ view: { ...s.view, tab: 'Approvals', openedApprovalId: approvalId, openings: s.view.openings + 1 } }));
  }

  /** Shows one call's audit trail: the Audit tab, filtered to its records (loaded from the gate). */
  async showAuditTrail(callId: string): Promise<void> {
    const set = this.store.setState;
    set((s) => ({ view: { ...s.view, tab: 'Audit', auditCallId: callId }, auditTrail: { callId, records: undefined, error: undefined } }));
    let trail: BridgeResponse<'listAudit'> | undefined;
    let error: string | undefined;
    try {
      trail = await this.bridge.listAudit({ callId, limit: AUDIT_TRAIL_LIMIT });
    } catch (failure) {
      error = `Could not load the audit trail of ${callId}: ${describe(failure)}`;
    }
    set((s) => {
      // The person may have asked for another call's trail meanwhile.
      if (s.auditTrail?.callId !== callId) return {};
      // Records appended while the trail loaded came as events: they are kept.
      const records = trail ? mergeAuditRecords(s.auditTrail.records ?? [], trail, AUDIT_TRAIL_LIMIT) : s.auditTrail.records;
      return { auditTrail: { callId, records, error } };
    });
  }

  /** Shows the latest records of every call again. */
  clearAuditTrail(): void {
    this.store.setState((s) => ({ view: { ...s.view, auditCallId: undefined }, auditTrail: undefined }));
  }

  /** Asks the gate to stop a call (withdraw its prompt, or kill its running tool); false when it had ended. */
  async stopCall(callId: string): Promise<boolean> {
    const { stopped } = await this.bridge.stopCall({ callId });
    return stopped;
  }

  /** Loads every snapshot; a failed one leaves its part as it was and says why in loadError. */
  async refreshSnapshots(): Promise<void> {
    const set = this.store.setState;
    const announced: ApprovalRequest[] = [];
    this.requestedDuringSnapshots.add(announced);
    const results = await Promise.allSettled([
      this.bridge.getInfo({}).then((info) => set({ info })),
      this.bridge.listTools({}).then((tools) => set((s) => ({ tools: mergeToolSnapshot(s.tools, tools) }))),
      this.bridge.listCalls({}).then((calls) => set((s) => ({ calls: mergeCallSnapshot(s.calls, calls, CALLS_CAP) }))),
      this.bridge
        .listApprovals({})
        .then((snapshot) => {
          // A prompt announced after the gate made the list is not in it: it is kept all the same.
          const pending = [...snapshot, ...announced];
          set({ approvals: replaceApprovals(pending, this.resolvedApprovalIds) });
          this.drafts.keepOnly(pending.map((request) => request.approvalId));
        }),
      this.bridge
        .listAudit({ limit: AUDIT_SNAPSHOT_LIMIT })
        .then((records) => set((s) => ({ audit: mergeAuditRecords(s.audit, records, AUDIT_CAP) }))),
    ]);
    this.requestedDuringSnapshots.delete(announced);
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
    this.lastVerifyStartedAt = Date.now();
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
  async decideApproval(
    approvalId: string,
    decision: ApprovalDecision,
    reason: string,
    extras: { tellAgent?: string; scope?: ApprovalScope; rules?: string[]; edit?: CallEdit; bindingHash?: string } = {},
  ): Promise<void> {
    const trimmed = reason.trim();
    const outcome = await this.bridge.decideApproval({ approvalId, decision, ...(trimmed ? { reason: trimmed } : {}), ...extras });
    this.applyOutcome(outcome);
  }

  /** Checks rules typed into a prompt's rule editor (nothing is saved). */
  checkRules(request: BridgeRequest<'checkRules'>): Promise<BridgeResponse<'checkRules'>> {
    return this.bridge.checkRules(request);
  }

  /** Checks a person's edit of a prompt's call as it is typed (nothing is decided). */
  checkEdit(request: BridgeRequest<'checkEdit'>): Promise<BridgeResponse<'checkEdit'>> {
    return this.bridge.checkEdit(request);
  }

  /** The audit log's newest signed checkpoint and the key that signs them, for the checkpoint panel. */
  checkpointStatus(): Promise<BridgeResponse<'checkpointStatus'>> {
    return this.bridge.checkpointStatus({});
  }

  /** The gate's memory and event-loop lag, for Settings; `reset` starts a new lag window after this reading. */
  gateDiagnostics(reset = false): Promise<BridgeResponse<'diagnostics'>> {
    return this.bridge.diagnostics(reset ? { reset } : {});
  }

  /** Every rule and grant in force, for the Permissions view. */
  listPermissions(): Promise<BridgeResponse<'listPermissions'>> {
    return this.bridge.listPermissions({});
  }

  /** Revokes a rule or grant by the id the Permissions list gave it. */
  async revokePermission(id: string): Promise<boolean> {
    return (await this.bridge.revokePermission({ id })).revoked;
  }

  /** Writes a grant's rule to the user or project policy file and drops the grant; the file's path. */
  async keepPermission(id: string, file: 'user' | 'project'): Promise<string> {
    return (await this.bridge.keepPermission({ id, file })).file;
  }

  /** The person has read the notes of prompts withdrawn because their agent left: they go. */
  dismissLeftPrompts(): void {
    this.store.setState({ leftPrompts: [] });
  }

  /**
   * Denies every prompt of one agent session ("Deny all from this agent"); resolves with how many
   * were denied. Their cards go as the gate's approvalResolved events arrive.
   */
  async denyAllFromAgent(agentSession: string, reason: string): Promise<number> {
    const trimmed = reason.trim();
    const { denied } = await this.bridge.denyAllFromAgent(trimmed ? { agentSession, reason: trimmed } : { agentSession });
    return denied;
  }

  private applyOutcome(outcome: ApprovalOutcome): void {
    this.rememberResolved(outcome);
    this.store.setState((s) => ({ approvals: removeApproval(s.approvals, outcome.approvalId) }));
  }

  private rememberResolved(outcome: ApprovalOutcome): void {
    this.resolvedApprovalIds.add(outcome.approvalId);
    this.drafts.forget(outcome.approvalId);
    if (this.resolvedApprovalIds.size > RESOLVED_MEMORY) {
      const oldest = this.resolvedApprovalIds.values().next().value;
      if (oldest !== undefined) this.resolvedApprovalIds.delete(oldest);
    }
  }

  /** Applies a frame's events in one store update. */
  private applyEvents(events: readonly StoreEvent[]): void {
    const calls: CallSnapshot[] = [];
    const added: ApprovalRequest[] = [];
    const removed = new Set<string>();
    const outcomes: ApprovalOutcome[] = [];
    const records: AuditRecord[] = [];
    for (const event of events) {
      if (event.kind === 'call') calls.push(event.call);
      else if (event.kind === 'requested') added.push(event.request);
      else if (event.kind === 'resolved') {
        removed.add(event.outcome.approvalId);
        outcomes.push(event.outcome);
      } else records.push(event.record);
    }
    this.store.setState((s) => {
      const trail = s.auditTrail;
      const ofTrail = trail ? records.filter((record) => record.callId === trail.callId) : [];
      return {
        calls: upsertCalls(s.calls, calls, CALLS_CAP),
        approvals: applyApprovalChanges(s.approvals, added, removed),
        // A card whose agent left goes like any other; the view then says why (its tool, from the card).
        leftPrompts: noteLeftPrompts(s.leftPrompts, outcomes, [...s.approvals, ...added]),
        ...(records.length > 0 ? { audit: mergeAuditRecords(s.audit, records, AUDIT_CAP) } : {}),
        // Marked stale once: a new verify object each frame would redraw the Audit view each frame.
        ...(records.length > 0 && !s.verify.stale ? { verify: { ...s.verify, stale: true } } : {}),
        ...(trail && ofTrail.length > 0 ? { auditTrail: { ...trail, records: mergeAuditRecords(trail.records ?? [], ofTrail, AUDIT_TRAIL_LIMIT) } } : {}),
      };
    });
  }

  private scheduleVerify(): void {
    if (this.stopped) return;
    clearTimeout(this.verifyTimer);
    const sinceLastCheck = Date.now() - this.lastVerifyStartedAt;
    this.verifyTimer = setTimeout(() => void this.verifyAudit(), Math.max(VERIFY_DEBOUNCE_MS, VERIFY_MIN_INTERVAL_MS - sinceLastCheck));
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
