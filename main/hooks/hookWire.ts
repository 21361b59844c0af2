import { shellQuote } from '../tools/shell/shellQuote';
import type { BashRunReply, RunGrant } from './bashRun';
import type { GateAnswer, PermissionDecision, PreToolUseOutput } from './hookInput';

// What the hook process and the gate's hook route agree on, in a module that loads nothing heavy:
// Claude Code starts the hook before and after every tool call, so its imports are its latency.

/** Where Claude Code's hook command posts its input (with the agents' bearer token, like /mcp). */
export const CLAUDE_CODE_HOOK_PATH = '/hooks/claude-code';

/** Where `toolgate hook run` asks the gate to run a Bash call it allowed (agents' token, like the hook). */
export const CLAUDE_CODE_RUN_PATH = '/hooks/claude-code/run';

/** Exit status of `toolgate hook run` when the command did not run (or its outcome is unknown): as bash's "cannot execute". */
export const NOT_RUN_EXIT_CODE = 126;

/** A PreToolUse answer. */
export function preToolUseAnswer(permissionDecision: PermissionDecision, permissionDecisionReason: string): PreToolUseOutput {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision, permissionDecisionReason } };
}

/** JSON with every non-ASCII character escaped: it passes through any terminal filter unchanged. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** How the hook command starts Toolgate again: this Node, this Toolgate's CLI and the state folder of the gate it asked. */
export interface ToolgateLauncher {
  node: string;
  cli: string;
  home: string;
}

/**
 * The command Claude Code runs in place of an allowed Bash call: Toolgate's CLI asks the gate to run
 * the approved text, bound to it by the grant and its hash, in the gate's sandbox. Every word is
 * quoted; the comment tells a person reading Claude Code's transcript what it is.
 */
export function sandboxedCommand(launcher: ToolgateLauncher, grant: RunGrant): string {
  const words = [launcher.node, launcher.cli, 'hook', 'run', grant.grant, '--sha256', grant.sha256].map(shellQuote).join(' ');
  return `TOOLGATE_HOME=${shellQuote(launcher.home)} ${words} # Toolgate runs the command it approved in its sandbox`;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const hasOnly = (value: Record<string, unknown>, keys: readonly string[]) => Object.keys(value).every((key) => keys.includes(key));
const DECISIONS: readonly string[] = ['allow', 'deny', 'ask'] satisfies PermissionDecision[];

/**
 * The gate's answer when it is exactly GateAnswerSchema's shape (main/hooks/hookInput.ts), else
 * undefined. Checked by hand because loading zod would cost a hook process more than Node's own
 * start; test/hooks/hookWire.test.ts holds this and the checks below to the schemas' verdicts.
 */
export function readGateAnswer(value: unknown): GateAnswer | undefined {
  if (!isRecord(value)) return undefined;
  if (Object.keys(value).length === 0) return {};
  if (!hasOnly(value, ['hookSpecificOutput', 'runInGate'])) return undefined;
  const output = value.hookSpecificOutput;
  if (!isRecord(output) || !hasOnly(output, ['hookEventName', 'permissionDecision', 'permissionDecisionReason', 'updatedInput'])) return undefined;
  if (output.hookEventName !== 'PreToolUse' || !DECISIONS.includes(output.permissionDecision as string)) return undefined;
  if (typeof output.permissionDecisionReason !== 'string') return undefined;
  if ('updatedInput' in output && output.updatedInput !== undefined && !isRecord(output.updatedInput)) return undefined;
  if ('runInGate' in value && value.runInGate !== undefined && !isRunGrant(value.runInGate)) return undefined;
  return value as GateAnswer;
}

/** A grant id: 32 lowercase hex digits (RunGrantSchema in main/hooks/bashRun.ts checks the same). */
export const GRANT_ID = /^[0-9a-f]{32}$/;
/** A command's SHA-256 in hex: 64 lowercase hex digits. */
export const COMMAND_SHA256 = /^[0-9a-f]{64}$/;

/** Whether a value is exactly a RunGrantSchema grant, checked without zod (see readGateAnswer). */
export function isRunGrant(value: unknown): value is RunGrant {
  if (!isRecord(value) || !hasOnly(value, ['grant', 'sha256'])) return false;
  return typeof value.grant === 'string' && GRANT_ID.test(value.grant) && typeof value.sha256 === 'string' && COMMAND_SHA256.test(value.sha256);
}

/** The gate's answer to `toolgate hook run` when it is exactly BashRunReplySchema's shape, else undefined (checked without zod, as readGateAnswer). */
export function readRunReply(value: unknown): BashRunReply | undefined {
  if (!isRecord(value)) return undefined;
  if (value.ran === false) return hasOnly(value, ['ran', 'message']) && typeof value.message === 'string' ? (value as BashRunReply) : undefined;
  if (value.ran !== true || !hasOnly(value, ['ran', 'exitCode', 'stdout', 'stderr'])) return undefined;
  const complete = Number.isSafeInteger(value.exitCode) && typeof value.stdout === 'string' && typeof value.stderr === 'string';
  return complete ? (value as BashRunReply) : undefined;
}
