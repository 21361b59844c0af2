import { z } from 'zod';
import { SettingsReportSchema } from './settings';
import { ApprovalOutcomeSchema, ApprovalRequestSchema, CallEditSchema, EditCheckSchema } from './approval';
import { AuditRecordSchema, AuditVerifyReportSchema } from './audit';
import {
  CallDetailSchema,
  CheckpointStatusSchema,
  ExplorerFilterSchema,
  ExplorerPageRequestSchema,
  ExplorerPageSchema,
  ExplorerStatsSchema,
  ExportRequestSchema,
  ExportResultSchema,
  ReplayReportSchema,
} from './explorer';
import { CallSnapshotSchema } from './call';
import { CallEffectsSchema, UndoReportSchema, UndoRequestSchema } from './effects';
import { SandboxFactSchema, ToolStatusSchema } from './health';
import { MemoryPageSchema, MemoryQuerySchema } from './memory';
import { PolicyStatusSchema } from './policy';
import { ApprovalScopeSchema, PermissionSchema, RuleCheckSchema } from './permissions';
import { UpstreamLaunchRequestSchema, UpstreamOverviewSchema, UpstreamReviewRequestSchema, UpstreamSandboxRequestSchema } from './upstream';
import { TeamDecideRequestSchema, TeamDecideResultSchema, TeamPromptFilterSchema, TeamPromptSchema, TeamStatusSchema } from './team';

/** Facts about the running gate that the console shows in its header. */
export const GateInfoSchema = z.object({
  /** Toolgate's version. */
  version: z.string(),
  /** The workspace root file tools are confined to. */
  workspace: z.string(),
  /** Where agents connect (Streamable HTTP), when the gate serves MCP. */
  mcpUrl: z.string().optional(),
  /** How long a prompt waits for a person before it is denied, in milliseconds. */
  approvalTimeoutMs: z.number(),
  /** Whether tools run in an OS sandbox; the console warns on every tab when they do not. */
  sandbox: SandboxFactSchema,
  /** The security mode and the policy files refused whole (the console shows a banner for each). */
  policy: PolicyStatusSchema.optional(),
  /** The settings in force and where each came from (flag, environment, settings.json, default). */
  settings: SettingsReportSchema.optional(),
  /** What the undo store holds when asked: bytes, before-images, and its size limit (absent: no store). */
  undoStore: z.object({ bytes: z.number().nonnegative(), images: z.number().int().nonnegative(), maxBytes: z.number().nonnegative() }).optional(),
});
export type GateInfo = z.infer<typeof GateInfoSchema>;

const empty = z.object({}).strict();

/** The gate process's health, as the console's Settings shows it and the bench reads it. */
export const GateDiagnosticsSchema = z.object({
  /** The gate's resident memory (tool processes apart), in bytes. */
  rssBytes: z.number().nonnegative(),
  /** Its JavaScript heap in use, in bytes. */
  heapUsedBytes: z.number().nonnegative(),
  /** How late its event loop ran, in milliseconds, over the window: what every agent's answer waited on top. */
  eventLoopLagMs: z.object({ p50: z.number().nonnegative(), p99: z.number().nonnegative(), max: z.number().nonnegative() }),
  /** How long the window is, in seconds: since the gate started, or since the last reset. */
  windowSeconds: z.number().nonnegative(),
  /** How long the gate has run, in seconds. */
  uptimeSeconds: z.number().nonnegative(),
});
export type GateDiagnostics = z.infer<typeof GateDiagnosticsSchema>;

/**
 * The console bridge: every request the renderer may make, with its request and response schema.
 * Main's handlers, the preload's methods, the WebSocket transport and the tests are typed from it.
 */
export const bridgeMethods = {
  getInfo: { request: empty, response: GateInfoSchema },
  listTools: { request: empty, response: z.array(ToolStatusSchema) },
  listCalls: { request: empty, response: z.array(CallSnapshotSchema) },
  listApprovals: { request: empty, response: z.array(ApprovalRequestSchema) },
  decideApproval: {
    request: z
      .object({
        /** The prompt being answered (an id main issued). */
        approvalId: z.string().min(1).max(100),
        /** Approve or deny. */
        decision: z.enum(['approve', 'deny']),
        /** Why (shown to the agent on deny). */
        reason: z.string().max(2000).optional(),
        /** On deny: what to tell the agent, passed to it verbatim. */
        tellAgent: z.string().max(4000).optional(),
        /** On approve: for how long (absent: this call only). */
        scope: ApprovalScopeSchema.optional(),
        /** On a scoped approve: the rules to grant or save, as the person edited them (one per entry). */
        rules: z.array(z.string().max(2000)).max(20).optional(),
        /** On a one-time approve: the person's edit of the call; the edited call is checked again and runs instead. */
        edit: CallEditSchema.optional(),
        /** The binding the person was shown (the prompt's bindingHash): when given, the answer holds only if the prompt still binds that call. */
        bindingHash: z.string().max(200).optional(),
      })
      .strict(),
    response: ApprovalOutcomeSchema,
  },
  checkEdit: {
    request: z
      .object({
        /** The prompt whose call is being edited (an id main issued). */
        approvalId: z.string().min(1).max(100),
        /** The edit as typed so far. */
        edit: CallEditSchema,
      })
      .strict(),
    response: EditCheckSchema,
  },
  checkRules: {
    request: z
      .object({
        /** The prompt the rules are made from (they must allow its call). */
        approvalId: z.string().min(1).max(100),
        /** The rules as typed. */
        rules: z.array(z.string().max(2000)).max(20),
        /** Where they would be saved. */
        scope: ApprovalScopeSchema,
      })
      .strict(),
    response: RuleCheckSchema,
  },
  listPermissions: { request: empty, response: z.array(PermissionSchema) },
  revokePermission: {
    request: z
      .object({
        /** The permission to revoke (an id listPermissions issued). */
        id: z.string().min(1).max(4000),
      })
      .strict(),
    response: z.object({
      /** False when it was already gone. */
      revoked: z.boolean(),
    }),
  },
  keepPermission: {
    request: z
      .object({
        /** The grant to keep for good (an id listPermissions issued): a session or timed allow. */
        id: z.string().min(1).max(4000),
        /** The policy file it is written to. */
        file: z.enum(['user', 'project']),
      })
      .strict(),
    response: z.object({
      /** The file the rule was appended to. */
      file: z.string(),
    }),
  },
  denyAllFromAgent: {
    request: z
      .object({
        /** The agent session whose prompts are all denied (an id main issued, shown on each prompt). */
        agentSession: z.string().min(1).max(100),
        /** Why (shown to the agent with each denial). */
        reason: z.string().max(2000).optional(),
      })
      .strict(),
    response: z.object({
      /** How many prompts were denied (0 when that agent had none waiting). */
      denied: z.number().int().nonnegative(),
    }),
  },
  listAudit: {
    request: z
      .object({
        /** How many records at most (newest first). */
        limit: z.number().int().min(1).max(1000).default(200),
        /** Only records with a seq below this one (for paging back). */
        beforeSeq: z.number().int().positive().optional(),
        /** Only the records of this call (an id main issued): its audit trail. */
        callId: z.string().min(1).max(100).optional(),
      })
      .strict(),
    response: z.array(AuditRecordSchema),
  },
  verifyAudit: { request: empty, response: AuditVerifyReportSchema },
  /** One page of the audit explorer: calls matching a filter, newest first, keyset-paged; facet counts on request. */
  exploreCalls: { request: ExplorerPageRequestSchema, response: ExplorerPageSchema },
  /** One call whole for the explorer's detail pane. */
  callDetail: { request: z.object({ callId: z.string().min(1).max(100) }).strict(), response: CallDetailSchema },
  /** The explorer's charts and sessions over the calls matching a filter. */
  explorerStats: { request: z.object({ filter: ExplorerFilterSchema.default({}) }).strict(), response: ExplorerStatsSchema },
  /** The explorer's current view as a JSONL or OTLP JSON file. */
  exportCalls: { request: ExportRequestSchema, response: ExportResultSchema },
  /** Re-runs a recorded call of a Pure or Deterministic tool and compares the response hash. */
  replayCall: { request: z.object({ callId: z.string().min(1).max(100) }).strict(), response: ReplayReportSchema },
  /** What a call changed in the workspace (null: it recorded nothing). */
  callEffects: { request: z.object({ callId: z.string().min(1).max(100) }).strict(), response: CallEffectsSchema.nullable() },
  /** Undoes a call (or rewinds to before it): a plan with a diff per file, applied unless a dry run or a conflict stops it. */
  undoCall: { request: UndoRequestSchema, response: UndoReportSchema },
  /** The newest signed checkpoint of the audit log and whether it verifies. */
  checkpointStatus: { request: empty, response: CheckpointStatusSchema },
  /** The workspace's memory notes: those matching a query, best first, or the newest. */
  memoryNotes: { request: MemoryQuerySchema, response: MemoryPageSchema },
  /** Deletes one memory note as the person's audited call. */
  deleteNote: {
    request: z
      .object({
        /** The note's id (as memoryNotes gave it). */
        id: z.number().int().positive(),
      })
      .strict(),
    response: z.object({
      /** False when another call deleted it first. */
      deleted: z.boolean(),
      /** The audited call that deleted it. */
      callId: z.string(),
    }),
  },
  /** The gate's memory and event-loop lag; `reset` starts a new lag window after this reading. */
  diagnostics: {
    request: z
      .object({
        /** Start a new window for the event-loop lag after answering. */
        reset: z.boolean().optional(),
      })
      .strict(),
    response: GateDiagnosticsSchema,
  },
  stopCall: {
    request: z
      .object({
        /** The call to stop (an id main issued): its prompt is withdrawn, or its running tool killed. */
        callId: z.string().min(1).max(100),
      })
      .strict(),
    response: z.object({
      /** False when the call had already ended (or never was). */
      stopped: z.boolean(),
    }),
  },
  /** The person's own MCP servers behind the gate: their state, tools, pins and findings. */
  upstreamServers: { request: empty, response: UpstreamOverviewSchema },
  /** Trusts some of a server's tools as shown, with the person's classes; answers the new overview. */
  reviewUpstream: { request: UpstreamReviewRequestSchema, response: UpstreamOverviewSchema },
  /** Approves a stdio server's exact launch and starts it; answers the new overview. */
  approveUpstreamLaunch: { request: UpstreamLaunchRequestSchema, response: UpstreamOverviewSchema },
  /**
   * Writes the sandbox the person chose into a stdio server's servers.json entry (refused for an
   * HTTP server, a launch changed since it was shown, or what servers.json would refuse); answers
   * the new overview, where its new launch waits for approval.
   */
  setUpstreamSandbox: { request: UpstreamSandboxRequestSchema, response: UpstreamOverviewSchema },
  /** Whether this console is in a team and reaches it (state off when not in one). */
  teamStatus: { request: empty, response: TeamStatusSchema },
  /** The team's prompts, newest first, with gate, machine, workspace and agent, filtered as asked (none when not in a team). */
  listTeamPrompts: { request: TeamPromptFilterSchema, response: z.array(TeamPromptSchema) },
  /** Answers a team prompt: the first answer at its key wins; a later one is told the winning decision. */
  decideTeamPrompt: { request: TeamDecideRequestSchema, response: TeamDecideResultSchema },
} as const;

/** Events main pushes to the console. */
export const bridgeEvents = {
  /** A call moved to another step. */
  callUpdated: CallSnapshotSchema,
  /** A call waits for a person. */
  approvalRequested: ApprovalRequestSchema,
  /** A prompt was answered or expired. */
  approvalResolved: ApprovalOutcomeSchema,
  /** A record was appended to the audit log. */
  auditAppended: AuditRecordSchema,
  /** A piece of a running call's output (a shell's terminal output, escape sequences kept, secrets redacted). */
  callOutput: z.object({
    /** The call it belongs to. */
    callId: z.string(),
    /** The output, as the terminal received it. */
    chunk: z.string(),
  }),
  /** A tool's health (and so its availability) changed: every tool's status, as listTools answers. */
  toolsChanged: z.array(ToolStatusSchema),
  /** The person clicked the desktop notification of a prompt: the console shows that prompt. */
  openApproval: z.object({
    /** The prompt (an id main issued). */
    approvalId: z.string().min(1).max(100),
  }),
  /** A policy file was reloaded (fixed, broken, trusted) or a session grant added: the policy status, as getInfo answers it. */
  policyChanged: PolicyStatusSchema,
  /** An upstream server started, stopped, restarted or sent a new tool list, or a review was saved: the new overview. */
  upstreamChanged: UpstreamOverviewSchema,
  /** A team prompt came, was decided or ended, or the team connection went up or down: the status, then listTeamPrompts again. */
  teamChanged: TeamStatusSchema,
} as const;

export type BridgeMethods = typeof bridgeMethods;
export type BridgeMethodName = keyof BridgeMethods;
export type BridgeEvents = typeof bridgeEvents;
export type BridgeEventName = keyof BridgeEvents;

/** A method's request as the caller may write it (defaults optional). */
export type BridgeRequest<M extends BridgeMethodName> = z.input<BridgeMethods[M]['request']>;
/** A method's request after validation (defaults filled in). */
export type BridgeParsedRequest<M extends BridgeMethodName> = z.output<BridgeMethods[M]['request']>;
/** A method's response. */
export type BridgeResponse<M extends BridgeMethodName> = z.output<BridgeMethods[M]['response']>;
/** An event's payload. */
export type BridgeEventPayload<E extends BridgeEventName> = z.output<BridgeEvents[E]>;

/** Main's side: one handler per method; a missing one is a compile error. */
export type BridgeHandlers = {
  [M in BridgeMethodName]: (request: BridgeParsedRequest<M>) => Promise<BridgeResponse<M>>;
};

/** The subscription method name of an event: callUpdated → onCallUpdated. */
export type SubscriptionName<E extends BridgeEventName> = `on${Capitalize<E>}`;

/** The renderer's side: named methods, and subscriptions that return their unsubscribe function. */
export type ConsoleBridge = {
  [M in BridgeMethodName]: (request: BridgeRequest<M>) => Promise<BridgeResponse<M>>;
} & {
  [E in BridgeEventName as SubscriptionName<E>]: (listener: (payload: BridgeEventPayload<E>) => void) => () => void;
};

/** The subscription method name of an event. */
export function subscriptionName<E extends BridgeEventName>(event: E): SubscriptionName<E> {
  return `on${event[0]!.toUpperCase()}${event.slice(1)}` as SubscriptionName<E>;
}

export const BRIDGE_METHOD_NAMES = Object.keys(bridgeMethods) as BridgeMethodName[];
export const BRIDGE_EVENT_NAMES = Object.keys(bridgeEvents) as BridgeEventName[];

/** A failed bridge request as it crosses the wire. */
export const BridgeFailureSchema = z.object({
  /** An error code (see ErrorCodeSchema) or EBRIDGE for a malformed message. */
  code: z.string(),
  /** What was wrong. */
  message: z.string(),
});
export type BridgeFailure = z.infer<typeof BridgeFailureSchema>;

/** A bridge reply: the response, or why there is none. */
export type BridgeReply<T> = { ok: true; value: T } | { ok: false; error: BridgeFailure };

/**
 * The desktop preload's side: the same named methods, resolving to the reply envelope itself,
 * because contextBridge hands the page only the message of a thrown error, never its code.
 */
export type DesktopBridge = {
  [M in BridgeMethodName]: (request: BridgeRequest<M>) => Promise<BridgeReply<BridgeResponse<M>>>;
} & {
  [E in BridgeEventName as SubscriptionName<E>]: (listener: (payload: BridgeEventPayload<E>) => void) => () => void;
};

/** Checks that a value is a reply envelope; anything else becomes an EBRIDGE failure. */
export function toBridgeReply(method: string, reply: unknown): BridgeReply<unknown> {
  const candidate = reply as { ok?: unknown; value?: unknown; error?: { code?: unknown; message?: unknown } } | null;
  if (candidate?.ok === true && 'value' in candidate) return { ok: true, value: candidate.value };
  if (candidate?.ok === false && typeof candidate.error?.code === 'string' && typeof candidate.error.message === 'string') {
    return { ok: false, error: { code: candidate.error.code, message: candidate.error.message } };
  }
  return { ok: false, error: { code: 'EBRIDGE', message: `${method}: malformed reply from the gate` } };
}

/** The value of a reply, or a BridgeError carrying the gate's code. */
export function unwrapBridgeReply(method: string, reply: unknown): unknown {
  const checked = toBridgeReply(method, reply);
  if (checked.ok) return checked.value;
  throw new BridgeError(checked.error.code, checked.error.message);
}

/** The error a renderer-side bridge method rejects with. */
export class BridgeError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'BridgeError';
  }
}

/** Messages of the WebSocket transport (headless shell). */
export const WsClientMessageSchema = z.object({
  /** Correlates the reply. */
  id: z.number().int().nonnegative(),
  /** Which bridge method. */
  method: z.string(),
  /** Its request. */
  params: z.unknown(),
});
export type WsClientMessage = z.infer<typeof WsClientMessageSchema>;

/**
 * A reply or pushed events, server to console. The gate sends events in batches (`events`, in the
 * order they happened, a call's snapshots of one status coalesced to the latest); `event` is one alone.
 */
export type WsServerMessage =
  | { type: 'reply'; id: number; reply: BridgeReply<unknown> }
  | { type: 'event'; event: BridgeEventName; payload: unknown }
  | { type: 'events'; events: ReadonlyArray<{ event: BridgeEventName; payload: unknown }> };
