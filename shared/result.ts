import { z } from 'zod';
import { EditSummarySchema } from './approval';
import { ToolErrorSchema } from './errors';

/** Facts about one call that travel with its result. */
export const ResultMetaSchema = z.object({
  /** Id the gate issued for the call. */
  callId: z.string(),
  /** When the gate received the call (ISO 8601). */
  startedAt: z.string(),
  /** When the call ended (ISO 8601). */
  endedAt: z.string(),
  /** endedAt − startedAt, in milliseconds. */
  durationMs: z.number().nonnegative(),
  /** BLAKE3 (hex) of the canonical JSON of `data`, or of `error` when the call failed. */
  responseHash: z.string(),
  /** Set when the output was cut to the tool's maxOutputBytes. */
  truncated: z.boolean().optional(),
  /** Set when `data` is an upstream MCP server's result: its content blocks go to the agent as they came. */
  upstream: z.boolean().optional(),
  /**
   * How many things in an upstream server's result the gate's checks flagged as possibly aimed at
   * the model (orders, look-alike letters, hidden characters); the result itself is unchanged.
   */
  findings: z.number().int().nonnegative().optional(),
  /** Things worth knowing that did not stop the call. */
  warnings: z.array(z.string()).optional(),
  /** Set when a person edited the call before approving it: what changed, and the note the agent is given. */
  edited: EditSummarySchema.extend({
    /** The sentence the agent reads: its call was changed, and how. */
    note: z.string(),
  }).optional(),
});
export type ResultMeta = z.infer<typeof ResultMetaSchema>;

/** What every call ends with: data or an error, and the meta. */
export const ToolResultSchema = z.object({
  /** True when the tool ran and its output passed validation. */
  ok: z.boolean(),
  /** The tool's output, normalized (present when ok). */
  data: z.unknown().optional(),
  /** Why the call failed (present when not ok). */
  error: ToolErrorSchema.optional(),
  /** Timing, hash and flags. */
  meta: ResultMetaSchema,
});
export type ToolResult = z.infer<typeof ToolResultSchema>;
