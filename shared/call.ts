import { z } from 'zod';
import { ToolErrorSchema } from './errors';
import { SecurityTierSchema } from './manifest';
import { TextFindingSchema } from './upstream';

/** Who sent a call to the gate (`console`: a person's replay of a recorded call, from the console or `toolgate audit replay`; `claude-code`: Claude Code's own tool, judged through its PreToolUse hook). */
export const CallSourceSchema = z.enum(['mcp', 'cli', 'test', 'console', 'claude-code']);
export type CallSource = z.infer<typeof CallSourceSchema>;

/**
 * Who an agent session says it is: its MCP client's name and version from `initialize` (declared by
 * the client, not proven), and when the session began.
 */
export const AgentInfoSchema = z.object({
  /** The client's name, e.g. `claude-code`: one line, hidden characters escaped, at most 64 characters (see agentName.ts). */
  client: z.string(),
  /** The client's version, cleaned the same way, at most 32 characters. */
  version: z.string(),
  /**
   * The client the session itself declared, when it forwarded another's name (as `toolgate mcp`
   * does): the name above is then only what that client says it forwards, and this one always shows.
   */
  via: z.object({ client: z.string(), version: z.string() }).optional(),
  /** When the session began (ISO 8601). */
  sessionStartedAt: z.string(),
});
export type AgentInfo = z.infer<typeof AgentInfoSchema>;

/** A call as an agent makes it: a tool name and its arguments. */
export const CallRequestSchema = z.object({
  /** Name of the tool to call. */
  tool: z.string(),
  /** The tool's arguments (validated against its input schema by the gate). */
  arguments: z.unknown(),
  /** Who sent it. */
  source: CallSourceSchema.default('test'),
  /** The agent's MCP session (an id the gate issued), so its prompts can be counted and denied together. */
  agentSession: z.string().optional(),
  /** Who the agent session says it is, when it came over MCP. */
  agent: AgentInfoSchema.optional(),
  /** The recorded call this one re-runs (a replay), kept in its invoked record. Set by the gate, never by an agent. */
  replayOf: z.string().optional(),
});
export type CallRequest = z.input<typeof CallRequestSchema>;

/** Where a call is in the pipeline. */
export const CallStatusSchema = z.enum([
  /** Received; lookup, validation, capability and policy checks under way. */
  'checking',
  /** Waiting for a person's decision. */
  'awaiting-approval',
  /** Running in a tool process. */
  'running',
  /** Finished with a result. */
  'completed',
  /** Refused before running (validation, capability, policy, person). */
  'rejected',
  /** Ran and failed (timeout, crash, thrown, bad output). */
  'failed',
]);
export type CallStatus = z.infer<typeof CallStatusSchema>;

/** A call as the console's Live view shows it; updated at every step. */
export const CallSnapshotSchema = z.object({
  /** Id the gate issued. */
  callId: z.string(),
  /** Tool name as the agent sent it. */
  tool: z.string(),
  /** The tool's tier, once the tool was found. */
  tier: SecurityTierSchema.optional(),
  /** Arguments as sent (secrets appear as their placeholders). */
  arguments: z.unknown(),
  /** Who sent the call. */
  source: CallSourceSchema,
  /** The agent's MCP session, when it came over MCP. */
  agentSession: z.string().optional(),
  /** Who the agent session says it is (client name, version, session start). */
  agent: AgentInfoSchema.optional(),
  /** Where the call is now. */
  status: CallStatusSchema,
  /** The pipeline step the call is at or ended in. */
  step: z.string(),
  /** When the gate received it (ISO 8601). */
  startedAt: z.string(),
  /** When it ended (ISO 8601). */
  endedAt: z.string().optional(),
  /** How long it took, in milliseconds, once ended. */
  durationMs: z.number().optional(),
  /** When a person was asked to decide it (ISO 8601), if one was. */
  askedAt: z.string().optional(),
  /** How long it waited for a person's decision, in milliseconds, once decided (absent: it was not asked). */
  waitedMs: z.number().optional(),
  /** How long its tool ran, in milliseconds, once ended (absent: it never ran). */
  ranMs: z.number().optional(),
  /** Loaded from the audit at start: a call of a gate that ran before this one. */
  beforeRestart: z.boolean().optional(),
  /** The tool's output, once completed. */
  data: z.unknown().optional(),
  /** Why it failed or was refused. */
  error: ToolErrorSchema.optional(),
  /** BLAKE3 of the normalized response, once ended. */
  responseHash: z.string().optional(),
  /** Set when the output was cut. */
  truncated: z.boolean().optional(),
  /** What in an upstream server's result may be aimed at the model (the result went to the agent unchanged). */
  findings: z.array(TextFindingSchema).optional(),
  /** How many workspace paths it changed, once ended (absent: none, or not recorded): what Undo offers to take back. */
  changedPaths: z.number().int().nonnegative().optional(),
  /** The approval this call waits on or waited on. */
  approvalId: z.string().optional(),
  /** Who decided whether it runs: a written rule, a tier default, the mode, a person, nobody in time, or the agent withdrawing it. */
  decidedBy: z
    .object({
      /** What kind of decider. */
      by: z.enum(['rule', 'default', 'mode', 'policy', 'person', 'timeout', 'withdrawn']),
      /** Which one, e.g. `shell_exec(git push *) (user policy line 4 (…))`. */
      detail: z.string(),
    })
    .optional(),
});
export type CallSnapshot = z.infer<typeof CallSnapshotSchema>;
