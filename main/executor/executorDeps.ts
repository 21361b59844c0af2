import type { AuditKind, CallStep } from '../../shared/audit';
import type { PreparedStep } from '../audit/preparedStep';
import type { Capability } from '../../shared/manifest';
import type { ApprovalQueue } from '../approvals/approvalQueue';
import type { SandboxInfo } from '../hosts/sandbox';
import type { ToolProcessPool } from '../hosts/toolProcessPool';
import type { Policy } from '../policy/tierPolicy';
import type { ExternalRunContext, ToolRegistry } from '../registry/registry';
import type { SecretProvider } from '../secrets/secretProvider';
import type { CallLogs, ToolLogLine } from './callLogs';
import type { CallRedactions } from './callRedactions';
import type { CallTracker } from './callTracker';
import type { CallScheduler } from './scheduler';
import type { EffectsRecorder } from './steps/recordEffects';

/** Output kept whole in the audit up to this size; past it, its head, size and hash. */
export const AUDIT_OUTPUT_BYTES = 1024 * 1024;

/** Where the executor writes its audit records. */
export interface AuditSink {
  /** Queues one record (chained at once, written with the next group commit). */
  append(entry: { callId: string; kind: AuditKind; payload: unknown }): unknown;
  /**
   * Resolves once every record appended so far is committed to the log; rejects when the commit
   * failed (those records are not in the log). The executor awaits it before a tool runs and before
   * a call is answered, so no agent is answered, and no tool runs, ahead of its record. `now`: commit
   * at once rather than when the event loop turns, as no other call's records are on their way.
   */
  durable(options?: { now?: boolean }): Promise<void>;
  /**
   * Calls `write` (which appends) at the start of the next durable(), so what it writes is in that
   * commit; returns the way to let go of it first. Without it, a caller appends at once.
   */
  holdUntilDurable?(write: () => void): () => void;
  /**
   * Canonicalizes a step ahead of its record; a `{ steps }` payload appended with it is written as if
   * the step had been given as it was. Without it, steps are canonicalized when appended.
   */
  prepareStep?(step: CallStep): PreparedStep;
}

/** Everything the pipeline needs, injected so each piece can be tested alone. */
export interface ExecutorDeps {
  registry: ToolRegistry;
  pool: ToolProcessPool;
  audit: AuditSink;
  approvals: ApprovalQueue;
  policy: Policy;
  calls: CallTracker;
  /** Real path of the workspace root. */
  workspace: string;
  /** Capabilities the gate grants to tools. */
  grants: readonly Capability[];
  /** Orders calls: writes one at a time, reads in parallel, per-tool limits, a bounded queue. */
  scheduler: CallScheduler;
  /** Where `$ENV.NAME` placeholders find their values. */
  secrets: SecretProvider;
  /** Redactors of the calls running with secrets, for their tool processes' logs. */
  redactions: CallRedactions;
  /** Where the log lines of the calls under way are routed, by call id. */
  logs: CallLogs;
  /** Whether tool processes run in an OS sandbox; without one, tools that touch files are judged a tier higher. */
  sandbox: SandboxInfo;
  /** Why a tool cannot be called right now (it failed its health check), if it cannot. */
  unavailableReason?: (tool: string) => string | undefined;
  /** Records what calls that may change the workspace changed (absent: nothing is recorded, nothing can be undone). */
  effects?: EffectsRecorder;
}

/** How one call is made. */
export interface CallOptions {
  /** Withdraws the call (the agent cancelled it): a prompt still waiting is taken back, a running tool stopped. */
  signal?: AbortSignal;
  /** Hears an external tool's progress, to pass on to the agent. */
  onProgress?: ExternalRunContext['onProgress'];
  /** Hears the call's log lines while it runs (a tool process's stderr, an upstream server's log messages), secrets redacted. */
  onLog?: (line: ToolLogLine) => void;
  /** Told when the call starts waiting for a person (its prompt is in the console), so the agent can say so. */
  onAsked?: () => void;
}

