import { z } from 'zod';
import { ToolErrorSchema } from '../../shared/errors';

/**
 * The one message protocol between the gate and a tool process, whichever host carries it
 * (Electron utilityProcess or Node child_process). Both sides validate what they receive.
 */

/** Facts a tool gets about the call it serves. */
export const RunContextSchema = z.object({
  /** Absolute, real path of the workspace root the tool is confined to. */
  workspace: z.string(),
  /** Preview the effect without making it. */
  dryRun: z.boolean(),
  /**
   * Hash of the preview a person approved. The tool process takes the preview again just before
   * the real run and refuses when it differs (the file changed since the person looked).
   */
  approvedPreviewHash: z.string().optional(),
  /**
   * Every secret the gate knows, for a built-in tool that works on workspace files only: it matches
   * each file as the redactor shows it (search_files, edit_file's snippet), so no pattern can test
   * a secret held in a file. Never sent to a module's tool, nor to one that starts programs.
   */
  hiddenSecrets: z.array(z.object({ name: z.string(), value: z.string() })).optional(),
  /** The secrets the tool's own manifest sends (ownSecrets: an HTTP tool's headers), resolved for this call. */
  secrets: z.array(z.object({ name: z.string(), value: z.string() })).optional(),
});
export type RunContext = z.infer<typeof RunContextSchema>;

/** Gate → tool process: run one call. */
export const RunRequestSchema = z.object({
  type: z.literal('run'),
  /** The call's id, echoed in the reply. */
  callId: z.string(),
  /** Tool name. */
  tool: z.string(),
  /** Module that implements it: 'builtin' or an absolute path to an ES module. */
  module: z.string(),
  /** Validated input, with secrets resolved. */
  input: z.unknown(),
  /**
   * The input as the person saw it (secret placeholders unresolved), for taking the preview again;
   * absent when it is the same as `input`.
   */
  previewInput: z.unknown().optional(),
  /** Workspace and mode. */
  context: RunContextSchema,
  /** The gate takes the call for one that runs only its own code (CallLimits.startsNothing) and waits for no stderr end marker after it. */
  startsNothing: z.boolean().optional(),
});
export type RunRequest = z.infer<typeof RunRequestSchema>;

/** Gate → tool process: initialize the tool if it has not been, then run its health check. */
export const HealthRequestSchema = z.object({
  type: z.literal('health'),
  /** An id for this check, echoed in the reply. */
  callId: z.string(),
  /** Tool name. */
  tool: z.string(),
  /** Module that implements it. */
  module: z.string(),
  /** Workspace root, for initialize(). */
  workspace: z.string(),
});
export type HealthRequest = z.infer<typeof HealthRequestSchema>;

/** Messages the gate sends to a tool process. */
export const HostRequestSchema = z.discriminatedUnion('type', [RunRequestSchema, HealthRequestSchema]);
export type HostRequest = z.infer<typeof HostRequestSchema>;

/** The largest piece of streamed output one message carries. */
export const MAX_OUTPUT_CHUNK_CHARS = 64 * 1024;

/** Tool process → gate: messages it may send. */
export const HostReplySchema = z.union([
  /** The process is up and can take a call. */
  z.object({ type: z.literal('ready') }),
  /** The call's outcome: the tool's output, or why it failed. */
  z.object({ type: z.literal('result'), callId: z.string(), ok: z.literal(true), data: z.unknown() }),
  z.object({ type: z.literal('result'), callId: z.string(), ok: z.literal(false), error: ToolErrorSchema }),
  /** A piece of a running call's output, streamed to the console's Live view (shell output). */
  z.object({ type: z.literal('output'), callId: z.string(), chunk: z.string().max(MAX_OUTPUT_CHUNK_CHARS) }),
  /** A health check's answer. */
  z.object({ type: z.literal('health'), callId: z.string(), healthy: z.boolean(), message: z.string().optional() }),
]);
export type HostReply = z.infer<typeof HostReplySchema>;

/**
 * The line a tool process writes to stderr after a call, before its answer: everything the call
 * wrote to stderr comes before it. The gate holds the answer until it has read this line, so each
 * log line reaches the call it belongs to (stderr is its own pipe, and after a flood it may still
 * be far behind the answer). A NUL starts it, which no text line of a tool's holds by chance.
 */
export function stderrEndMarker(callId: string): string {
  return `\u0000toolgate:stderr-end:${callId}`;
}
