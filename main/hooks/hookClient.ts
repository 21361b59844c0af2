import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MAX_BODY_BYTES } from '../server/httpBody';
import { toolgateRoot } from '../state/paths';
import { GATE_NOT_RUNNING_MESSAGE, runningGateEndpoint } from '../state/runningGate';
import { GateUnreachableError, postToGate, type GateReply } from './gatePost';
import type { HookOutput } from './hookInput';
import { asciiJson, CLAUDE_CODE_HOOK_PATH, preToolUseAnswer, readGateAnswer, sandboxedCommand, type ToolgateLauncher } from './hookWire';

// The hook process loads this module and what it imports, nothing more (see main/hooks/hookMain.ts):
// with a gate running, the gate validates the input and judges it; zod and the policy load only
// when no gate runs, to name what is wrong with an input nobody else will read.

/** The most hook input read from stdin: what the gate reads of one request body. */
export const MAX_HOOK_INPUT_BYTES = MAX_BODY_BYTES;

/** Reads all of a stream, or undefined once it passes `limit` bytes (the rest is left unread). */
export async function readBounded(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > limit) return undefined;
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, size);
}

/** This Node and this Toolgate's CLI, with the state folder the hook asked: what the command that runs an allowed Bash call starts. */
export function thisToolgate(home: string): ToolgateLauncher {
  return { node: process.execPath, cli: resolve(toolgateRoot(), 'bin/toolgate.js'), home: resolve(home) };
}

/** Whether stdin held a PreToolUse (the only event whose answer decides anything). */
function isPreToolUse(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as Record<string, unknown>).hook_event_name === 'PreToolUse';
}

/** Why a value is not a hook input, or undefined when it is one (zod loads here, on the path without a gate only). */
async function inputProblem(value: unknown): Promise<string | undefined> {
  const { HookInputSchema, hookInputProblem } = await import('./hookInput');
  const input = HookInputSchema.safeParse(value);
  return input.success ? undefined : hookInputProblem(input.error);
}

/**
 * Claude Code's hook input (stdin bytes) judged by the running gate: the answer to print. Input that
 * is not JSON, not a hook input or too large is denied; a gate that is not running, cannot be
 * reached or does not answer in time gets `ask`, so Claude Code's own prompt decides; never a
 * silent allow. An outcome (PostToolUse) the gate cannot take is answered `{}` (there is nothing to decide).
 */
export async function judgeHookInput(stdin: Buffer | undefined, home: string, timeoutMs: number, launcher?: ToolgateLauncher): Promise<HookOutput> {
  if (stdin === undefined) return preToolUseAnswer('deny', `Toolgate refuses a hook input over ${MAX_HOOK_INPUT_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(stdin.toString('utf8'));
  } catch (error) {
    return preToolUseAnswer('deny', `Toolgate could not read the hook input: it is not valid JSON (${(error as Error).message})`);
  }
  // Denied whether or not a gate can be reached, as any other input that is no hook input.
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return preToolUseAnswer('deny', 'Toolgate could not read the hook input: it is JSON but not an object (Claude Code sends one object per event)');
  }
  const unanswered = (why: string): HookOutput =>
    isPreToolUse(value) ? preToolUseAnswer('ask', `Toolgate could not judge this call: ${why}`) : {};
  const gate = runningGateEndpoint(home);
  if (!gate) {
    const problem = await inputProblem(value);
    return problem === undefined ? unanswered(GATE_NOT_RUNNING_MESSAGE) : preToolUseAnswer('deny', `Toolgate refuses it: ${problem}`);
  }
  // The gate checks the input against the same schema and refuses it 400, naming the field. The
  // bytes go as Claude Code wrote them: they are JSON, and no re-serialization can fail on them
  // (JSON.stringify overflows the stack on an input nested a few thousand levels deep).
  let reply: GateReply;
  try {
    reply = await postToGate(gate, CLAUDE_CODE_HOOK_PATH, stdin.toString('utf8'), timeoutMs);
  } catch (error) {
    const { message } = error as Error;
    return unanswered(error instanceof GateUnreachableError ? `${message}. ${GATE_NOT_RUNNING_MESSAGE}` : `the gate did not answer (${message})`);
  }
  if ('value' in reply) {
    const answer = readGateAnswer(reply.value);
    if (!answer) return unanswered('the gate answered with something that is not a hook answer');
    if (!isPreToolUse(value)) return {};
    // A PreToolUse answered without a decision would leave Claude Code to its own rules, unasked: only allow, deny or ask count.
    if (!('hookSpecificOutput' in answer)) return unanswered('the gate answered without a decision');
    const { runInGate, ...output } = answer;
    if (!runInGate) return output;
    // The gate took the input as a hook input (200), so tool_name and tool_input are what its schema says.
    const input = value as { tool_name: string; tool_input: Record<string, unknown> };
    if (output.hookSpecificOutput.permissionDecision !== 'allow' || input.tool_name !== 'Bash') return unanswered('the gate answered with a grant to run something other than an allowed Bash call');
    // The whole input is replaced: its other fields (timeout, description, …) stay as Claude Code gave them.
    // Toolgate's own folder is looked up here only: finding it reads package.json files up the tree.
    const updatedInput = { ...input.tool_input, command: sandboxedCommand(launcher ?? thisToolgate(home), runInGate) };
    return { hookSpecificOutput: { ...output.hookSpecificOutput, updatedInput } };
  }
  // Refused as unreadable (400, 413): deny; refused for any other reason (a stale token, a gate error): ask.
  if (reply.refused === 400 || reply.refused === 413) return preToolUseAnswer('deny', `Toolgate refuses it: ${reply.message}`);
  return unanswered(`the gate refused the request (${reply.refused}: ${reply.message})`);
}

/** How long a prompt waits unless settings.json says otherwise (the gate's own default). */
export const DEFAULT_APPROVAL_SECONDS = 300;

/**
 * How long the hook waits for the gate: the approval timeout this state folder's gate starts with,
 * plus half a minute. The gate answers an unanswered prompt by itself; this is only the backstop for
 * a gate that hangs. settings.json is read without its schema (the gate refused to start on a bad one).
 */
export function hookWaitMs(home: string): number {
  let seconds: unknown;
  try {
    seconds = (JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')) as { approvalTimeoutSeconds?: unknown }).approvalTimeoutSeconds;
  } catch {
    seconds = undefined;
  }
  const valid = Number.isInteger(seconds) && (seconds as number) >= 1 && (seconds as number) <= 86_400;
  return ((valid ? (seconds as number) : DEFAULT_APPROVAL_SECONDS) + 30) * 1000;
}

/** `toolgate hook claude-code`: reads Claude Code's input from `stdin` and returns the line to print (ASCII JSON). */
export async function answerClaudeCodeHook(stdin: NodeJS.ReadableStream, home: string): Promise<string> {
  const output = await judgeHookInput(await readBounded(stdin, MAX_HOOK_INPUT_BYTES), home, hookWaitMs(home));
  return `${asciiJson(output)}\n`;
}
