import { request as httpRequest } from 'node:http';
import { GATE_NOT_RUNNING_MESSAGE } from '../mcp/gateClient';
import { MAX_BODY_BYTES } from '../server/httpBody';
import { readGateAddress, readToken } from '../state/stateFolder';
import { hookInputProblem, HookInputSchema, HookOutputSchema, preToolUseAnswer, type HookOutput } from './hookInput';
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

/** What the gate answered: its hook output, or an HTTP refusal with the gate's message. */
type GateReply = { output: HookOutput } | { refused: number; message: string };

/** Posts a hook input to the running gate and waits (up to `timeoutMs`) for its answer. */
function postToGate(port: number, token: string, body: string, timeoutMs: number): Promise<GateReply> {
  return new Promise((resolveReply, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: CLAUDE_CODE_HOOK_PATH,
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
            const output = HookOutputSchema.safeParse(value);
            if (output.success) resolveReply({ output: output.data });
            else reject(new Error('the gate answered with something that is not a hook answer'));
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
export async function judgeHookInput(stdin: Buffer | undefined, home: string, timeoutMs: number): Promise<HookOutput> {
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
  let port: number;
  let token: string;
  try {
    port = readGateAddress(home).port;
    token = readToken(home);
  } catch {
    return unanswered(GATE_NOT_RUNNING_MESSAGE);
  }
  let reply: GateReply;
  try {
    reply = await postToGate(port, token, JSON.stringify(input.data), timeoutMs);
  } catch (error) {
    return unanswered(`${(error as Error).message}. ${GATE_NOT_RUNNING_MESSAGE}`);
  }
  if ('output' in reply) {
    if (!isPreToolUse(value)) return {};
    // A PreToolUse answered without a decision would leave Claude Code to its own rules, unasked: only allow, deny or ask count.
    return 'hookSpecificOutput' in reply.output ? reply.output : unanswered('the gate answered without a decision');
  }
  // Refused as unreadable (400, 413): deny; refused for any other reason (a stale token, a gate error): ask.
  if (reply.refused === 400 || reply.refused === 413) return preToolUseAnswer('deny', `Toolgate refuses it: ${reply.message}`);
  return unanswered(`the gate refused the request (${reply.refused}: ${reply.message})`);
}

/** JSON with every non-ASCII character escaped: it passes through any terminal filter unchanged. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
