import { request as httpRequest } from 'node:http';
import { resolve } from 'node:path';
import { GATE_NOT_RUNNING_MESSAGE } from '../mcp/gateClient';
import { MAX_BODY_BYTES } from '../server/httpBody';
import { toolgateRoot } from '../state/paths';
import { readGateAddress, readToken } from '../state/stateFolder';
import { BashRunReplySchema, CLAUDE_CODE_RUN_PATH, NOT_RUN_EXIT_CODE, sandboxedCommand, type RunGrant, type ToolgateLauncher } from './bashRun';
import { GateAnswerSchema, hookInputProblem, HookInputSchema, preToolUseAnswer, type HookOutput } from './hookInput';
import { CLAUDE_CODE_HOOK_PATH } from './hookRoute';

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

/** What the gate answered: its JSON (status 200), or an HTTP refusal with the gate's message. */
type GateReply = { value: unknown } | { refused: number; message: string };

/** Posts a body to one of the gate's hook paths and waits (up to `timeoutMs` without a byte) for its answer. */
function postToGate(port: number, token: string, path: string, body: string, timeoutMs: number): Promise<GateReply> {
  return new Promise((resolveReply, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch {
            reject(new Error(`the gate answered ${response.statusCode} with no JSON`));
            return;
          }
          if (response.statusCode === 200) {
            resolveReply({ value });
            return;
          }
          const message = (value as { error?: { message?: unknown } }).error?.message;
          resolveReply({ refused: response.statusCode ?? 0, message: typeof message === 'string' ? message : `HTTP ${response.statusCode}` });
        });
      },
    );
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`the gate gave no answer within ${Math.round(timeoutMs / 1000)} s`)));
    request.on('error', reject);
    request.end(body);
  });
}

/** The running gate's port and the agents' token, or undefined when no gate runs for this state folder. */
function gateOf(home: string): { port: number; token: string } | undefined {
  try {
    return { port: readGateAddress(home).port, token: readToken(home) };
  } catch {
    return undefined;
  }
}

/** This Node and this Toolgate's CLI, with the state folder the hook asked: what the command that runs an allowed Bash call starts. */
export function thisToolgate(home: string): ToolgateLauncher {
  return { node: process.execPath, cli: resolve(toolgateRoot(), 'bin/toolgate.js'), home: resolve(home) };
}

/** Whether stdin held a PreToolUse (the only event whose answer decides anything). */
function isPreToolUse(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as Record<string, unknown>).hook_event_name === 'PreToolUse';
}

/**
 * Claude Code's hook input (stdin bytes) judged by the running gate: the answer to print. Input that
 * is not JSON, not a hook input or too large is denied; a gate that is not running, cannot be
 * reached or does not answer in time gets `ask`, so Claude Code's own prompt decides; never a
 * silent allow. An outcome (PostToolUse) the gate cannot take is answered `{}` (there is nothing to decide).
 */
export async function judgeHookInput(stdin: Buffer | undefined, home: string, timeoutMs: number, launcher = thisToolgate(home)): Promise<HookOutput> {
  if (stdin === undefined) return preToolUseAnswer('deny', `Toolgate refuses a hook input over ${MAX_HOOK_INPUT_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(stdin.toString('utf8'));
  } catch (error) {
    return preToolUseAnswer('deny', `Toolgate could not read the hook input: it is not valid JSON (${(error as Error).message})`);
  }
  const input = HookInputSchema.safeParse(value);
  if (!input.success) return preToolUseAnswer('deny', `Toolgate refuses it: ${hookInputProblem(input.error)}`);
  const unanswered = (why: string): HookOutput =>
    isPreToolUse(value) ? preToolUseAnswer('ask', `Toolgate could not judge this call: ${why}`) : {};
  const gate = gateOf(home);
  if (!gate) return unanswered(GATE_NOT_RUNNING_MESSAGE);
  let reply: GateReply;
  try {
    reply = await postToGate(gate.port, gate.token, CLAUDE_CODE_HOOK_PATH, JSON.stringify(input.data), timeoutMs);
  } catch (error) {
    return unanswered(`${(error as Error).message}. ${GATE_NOT_RUNNING_MESSAGE}`);
  }
  if ('value' in reply) {
    const answer = GateAnswerSchema.safeParse(reply.value);
    if (!answer.success) return unanswered('the gate answered with something that is not a hook answer');
    if (!isPreToolUse(value)) return {};
    // A PreToolUse answered without a decision would leave Claude Code to its own rules, unasked: only allow, deny or ask count.
    if (!('hookSpecificOutput' in answer.data)) return unanswered('the gate answered without a decision');
    const { runInGate, ...output } = answer.data;
    if (!runInGate) return output;
    if (output.hookSpecificOutput.permissionDecision !== 'allow' || input.data.tool_name !== 'Bash') return unanswered('the gate answered with a grant to run something other than an allowed Bash call');
    // The whole input is replaced: its other fields (timeout, description, …) stay as Claude Code gave them.
    const updatedInput = { ...input.data.tool_input, command: sandboxedCommand(launcher, runInGate) };
    return { hookSpecificOutput: { ...output.hookSpecificOutput, updatedInput } };
  }
  // Refused as unreadable (400, 413): deny; refused for any other reason (a stale token, a gate error): ask.
  if (reply.refused === 400 || reply.refused === 413) return preToolUseAnswer('deny', `Toolgate refuses it: ${reply.message}`);
  return unanswered(`the gate refused the request (${reply.refused}: ${reply.message})`);
}

/** Where `toolgate hook run` writes the command's output. */
export interface RunOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** How long `toolgate hook run` waits without a byte from the gate: past the longest command and its kill. */
const RUN_WAIT_MS = 10 * 60_000;

/**
 * `toolgate hook run`: asks the running gate to run the Bash call it allowed under this grant, in its
 * sandbox, and hands on the command's stdout, stderr and exit status. Whatever keeps the command
 * from running (no gate, an unknown, spent or changed grant) is said on stderr, with NOT_RUN_EXIT_CODE:
 * nothing runs on the host, ever.
 */
export async function runInGate(grant: RunGrant, home: string, output: RunOutput): Promise<number> {
  const notRun = (why: string): number => {
    output.stderr(`toolgate: the approved command did not run: ${why}\n`);
    return NOT_RUN_EXIT_CODE;
  };
  const gate = gateOf(home);
  if (!gate) return notRun(`${GATE_NOT_RUNNING_MESSAGE}, then ask Claude Code to run the command again`);
  let reply: GateReply;
  try {
    reply = await postToGate(gate.port, gate.token, CLAUDE_CODE_RUN_PATH, JSON.stringify(grant), RUN_WAIT_MS);
  } catch (error) {
    // Sent, the command may have started before the gate went away: its outcome is not known here.
    output.stderr(`toolgate: the gate could not be reached or went away (${(error as Error).message}); if the command had started, it was stopped with the gate, and nothing ran outside it\n`);
    return NOT_RUN_EXIT_CODE;
  }
  if (!('value' in reply)) return notRun(`the gate refused the request (${reply.refused}: ${reply.message})`);
  const parsed = BashRunReplySchema.safeParse(reply.value);
  if (!parsed.success) return notRun('the gate answered with something that is not the outcome of a run');
  if (!parsed.data.ran) return notRun(parsed.data.message);
  output.stdout(parsed.data.stdout);
  output.stderr(parsed.data.stderr);
  return parsed.data.exitCode;
}

/** JSON with every non-ASCII character escaped: it passes through any terminal filter unchanged. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
