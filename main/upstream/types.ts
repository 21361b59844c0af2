import type { ToolError } from '../../shared/errors';
import type { ToolLogLine } from '../executor/callLogs';
import type {
  DefinitionFinding,
  RefusedTool,
  ToolClass,
  UpstreamServerConfig,
  UpstreamStatus,
  UpstreamToolDefinition,
} from '../../shared/upstream';

/** What a call to an upstream tool gave back: the MCP result as sent, or why there is none. */
export type UpstreamCallOutcome =
  | {
      ok: true;
      /** The CallToolResult's content blocks, as the server sent them. */
      content: unknown[];
      structuredContent?: Record<string, unknown>;
      /** The server said the tool failed (the call itself went through). */
      isError: boolean;
    }
  /** ECRASH (the server died or dropped the connection), ETIMEOUT, EQUOTA (result past its cap), EDENIED with details.cancelled (withdrawn), ERUNTIME (malformed reply). */
  | { ok: false; error: ToolError };

/** Progress an upstream reports while a call runs, passed on to the agent. */
export interface UpstreamProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** Limits and hooks of one upstream call. */
export interface UpstreamCallOptions {
  /** Withdraws the call: the server is sent notifications/cancelled, the outcome is EDENIED with details.cancelled. */
  signal?: AbortSignal;
  timeoutMs: number;
  /** Bytes of the serialized result past which it is refused (EQUOTA) instead of returned. */
  maxResultBytes: number;
  onProgress?: (progress: UpstreamProgress) => void;
  /** The agent session the call came from, to tell whose the server's log lines are (see RunningUpstreamCalls). */
  agentSession?: string;
  /** Hears the server's log lines (notifications/message) that are this call's. */
  onLog?: (line: ToolLogLine) => void;
}

/** Where one server stands, as `servers list` and the Tools view show it. */
export interface UpstreamState {
  name: string;
  transport: 'stdio' | 'http';
  status: UpstreamStatus;
  /** The MCP revision it speaks, as negotiated when it last connected: '2026-07-28', or the 2025-era one its initialize agreed ('2025-11-25'…). */
  protocol?: string;
  /** Why it is failed or restarting, or what it waits for. */
  detail?: string;
  /** Restarts since the gate started. */
  restarts: number;
  /** Its tools after vetting (the last list it sent). */
  tools: number;
  /** Tools of its list the gate refused (duplicate names, schemas that are not JSON Schema…). */
  refused: RefusedTool[];
}

/**
 * One upstream server: started (stdio, in its sandbox) or reached (Streamable HTTP) through the
 * official MCP SDK client, which speaks 2026-07-28 to a server that offers it and a 2025 session to
 * one that does not; restarted with backoff when it crashes, its tool list vetted.
 */
export interface UpstreamConnection {
  readonly config: UpstreamServerConfig;
  state(): UpstreamState;
  /** Starts it and fetches its tools; rejects with a GateError saying why it could not start. */
  start(): Promise<void>;
  /** Its vetted tools from its last list. */
  tools(): UpstreamToolDefinition[];
  /** Calls one of its tools by its own (unprefixed) name. Never throws: a failure is an outcome. */
  call(tool: string, args: Record<string, unknown>, options: UpstreamCallOptions): Promise<UpstreamCallOutcome>;
  /** Called after the server sent notifications/tools/list_changed and its new list was fetched and vetted. */
  onToolsChanged(listener: (tools: UpstreamToolDefinition[]) => void): () => void;
  /** Stops it for good (kills a stdio server's whole sandbox). */
  close(): Promise<void>;
}

/** A tool's saved review: the definition the person trusted and how they classified it. */
export interface ToolReview {
  /** pinHash() of the definition trusted. */
  definitionHash: string;
  /** The definition itself, to show beside a changed one. */
  definition: UpstreamToolDefinition;
  class: ToolClass;
  reviewedAt: string;
}

/** Where a tool stands against its review. */
export type PinState =
  | { state: 'trusted'; review: ToolReview }
  /** Never reviewed: offered to no agent and refused; its manifest is judged at the suggested class (never below ELEVATED). */
  | { state: 'unreviewed'; suggested: ToolClass }
  /** Its definition changed since it was trusted: disabled until the person reviews old and new. */
  | { state: 'changed'; review: ToolReview; current: UpstreamToolDefinition };

/** The saved reviews, in $TOOLGATE_HOME/upstream-reviews.json (written atomically, mode 0600). */
export interface ReviewStore {
  /** The launch the person approved for a server: the hash of its exact command, args, env names, cwd and sandbox. */
  approvedLaunch(server: string): string | undefined;
  approveLaunch(server: string, launchHash: string): void;
  /** Where a tool stands against its review. */
  pinState(server: string, definition: UpstreamToolDefinition): PinState;
  /** Trusts these definitions as they are, with these classes. */
  trust(server: string, reviews: { definition: UpstreamToolDefinition; class: ToolClass }[]): void;
  /** Forgets a server's reviews (tools and launch). */
  forget(server: string): void;
}

export type { DefinitionFinding };
