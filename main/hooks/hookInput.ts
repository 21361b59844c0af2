import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { RunGrantSchema } from './bashRun';

/** Ids recorded and shown as they came: printable ASCII only, so none can break a line or hide text. */
const PRINTABLE_ID = /^[\x21-\x7e]{1,200}$/;

/**
 * What Claude Code sends a command hook on stdin (hooks reference, "Hook input"): the fields every
 * event carries, then the tool's own. Fields Claude Code adds later (permission_mode, …) are kept
 * and ignored, so a newer Claude Code still reaches the gate.
 */
const HookCommonSchema = z.looseObject({
  /** Claude Code's session: the agent session its calls are recorded and prompted under. */
  session_id: z.string().regex(PRINTABLE_ID, 'a session id is 1 to 200 printable ASCII characters without spaces'),
  /** The conversation's transcript file (recorded, never read). */
  transcript_path: z.string().max(4096).optional(),
  /** The folder Claude Code works in (absolute): where Bash runs and relative paths start. */
  cwd: z.string().max(4096).refine(isAbsolute, 'the cwd is an absolute path (Claude Code always sends one)'),
  /** Claude Code's tool: Bash, Edit, MultiEdit, Write, Read, WebFetch, mcp__server__tool, … */
  tool_name: z.string().regex(/^[A-Za-z0-9_.:-]{1,256}$/, 'a tool name is 1 to 256 letters, digits and _ . : -'),
  /** The tool's arguments, as Claude Code will run them (file paths are absolute). */
  tool_input: z.record(z.string(), z.unknown()),
  /** Claude Code's id of this tool use: ties a PostToolUse to the PreToolUse that judged it. */
  tool_use_id: z.string().regex(PRINTABLE_ID, 'a tool_use_id is 1 to 200 printable ASCII characters without spaces').optional(),
});

/** PreToolUse: the tool is about to run; the hook answers allow, deny or ask. */
export const PreToolUseInputSchema = HookCommonSchema.extend({ hook_event_name: z.literal('PreToolUse') });
export type PreToolUseInput = z.infer<typeof PreToolUseInputSchema>;

/** PostToolUse: the tool ran; its response is recorded as the call's outcome. */
export const PostToolUseInputSchema = HookCommonSchema.extend({
  hook_event_name: z.literal('PostToolUse'),
  /** What the tool returned (its shape depends on the tool). */
  tool_response: z.unknown(),
});
export type PostToolUseInput = z.infer<typeof PostToolUseInputSchema>;

/**
 * PostToolUseFailure: the tool ran and failed (Claude Code sends it instead of PostToolUse). Not
 * installed (an older Claude Code would not know the event); taken when a person configures it.
 */
export const PostToolUseFailureInputSchema = HookCommonSchema.extend({
  hook_event_name: z.literal('PostToolUseFailure'),
  /** What went wrong, as Claude Code tells it. */
  error: z.string().optional(),
});
export type PostToolUseFailureInput = z.infer<typeof PostToolUseFailureInputSchema>;

/** The hook inputs the gate judges or records; any other event is not one of them. */
export const HookInputSchema = z.discriminatedUnion('hook_event_name', [PreToolUseInputSchema, PostToolUseInputSchema, PostToolUseFailureInputSchema]);
export type HookInput = z.infer<typeof HookInputSchema>;

/** Claude Code's three answers to a PreToolUse hook. */
export const PermissionDecisionSchema = z.enum(['allow', 'deny', 'ask']);
export type PermissionDecision = z.infer<typeof PermissionDecisionSchema>;

/**
 * What the hook prints for PreToolUse (hooks reference, "PreToolUse decision control"): allow skips
 * Claude Code's prompt, deny blocks the call and tells Claude the reason, ask shows Claude Code's
 * own prompt with the reason.
 */
export const PreToolUseOutputSchema = z.strictObject({
  hookSpecificOutput: z.strictObject({
    hookEventName: z.literal('PreToolUse'),
    permissionDecision: PermissionDecisionSchema,
    permissionDecisionReason: z.string(),
    /** With allow: the tool's input as Claude Code is to run it instead (the whole input; its other fields kept). */
    updatedInput: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type PreToolUseOutput = z.infer<typeof PreToolUseOutputSchema>;

/** What the hook prints after a tool ran: nothing to decide, so an empty object (Claude Code goes on). */
const PostToolUseOutputSchema = z.strictObject({});

/** Either answer, as the hook command prints it. */
export const HookOutputSchema = z.union([PreToolUseOutputSchema, PostToolUseOutputSchema]);
export type HookOutput = z.infer<typeof HookOutputSchema>;

/**
 * What the gate's hook route answers: the hook's answer, and for a Bash call the gate runs itself
 * the grant the hook command turns into Claude Code's updatedInput (with its own Node, CLI and state folder).
 */
export const GateAnswerSchema = z.union([PreToolUseOutputSchema.extend({ runInGate: RunGrantSchema.optional() }), PostToolUseOutputSchema]);
export type GateAnswer = z.infer<typeof GateAnswerSchema>;

export { preToolUseAnswer } from './hookWire';

/** Why a value is not a hook input the gate takes, in one line naming the field. */
export function hookInputProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'the input';
  return `not a Claude Code PreToolUse, PostToolUse or PostToolUseFailure hook input (${where}: ${issue?.message ?? 'unreadable'})`;
}

/** The name a Claude Code tool is recorded and prompted under: `claude_code.Bash`, `claude_code.mcp__github__create_issue`. */
export function recordedHookTool(toolName: string): string {
  return `claude_code.${toolName}`;
}

/** What a call's `invoked` record keeps of the hook: its event, Claude Code's cwd and tool_use_id, and who runs the tool once allowed. */
export function hookFacts(input: HookInput, runBy: 'claude-code' | 'toolgate-sandbox' = 'claude-code'): Record<string, unknown> {
  return { event: input.hook_event_name, cwd: input.cwd, ...(input.tool_use_id ? { toolUseId: input.tool_use_id } : {}), runBy };
}
