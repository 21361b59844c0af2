import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonBody, sendJsonRpcError } from '../server/httpBody';
import { CLAUDE_CODE_RUN_PATH, RunGrantSchema } from './bashRun';
import { hookInputProblem, HookInputSchema } from './hookInput';
import type { HookJudge } from './hookJudge';
import { CLAUDE_CODE_HOOK_PATH } from './hookWire';

export { CLAUDE_CODE_HOOK_PATH };

/** The paths of Claude Code's hook: its input, and the run of a Bash call the gate allowed. */
export const CLAUDE_CODE_PATHS: readonly string[] = [CLAUDE_CODE_HOOK_PATH, CLAUDE_CODE_RUN_PATH];

/** An AbortSignal that fires when the client goes away before its answer was sent. */
function clientGone(response: ServerResponse): AbortSignal {
  const gone = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) gone.abort();
  });
  return gone.signal;
}

/**
 * Serves one hook request whose token was already checked. At CLAUDE_CODE_HOOK_PATH: a POST of
 * Claude Code's hook input, answered with the JSON the hook prints (a body that is not a hook input
 * is refused 400, naming the field; the hook command then denies the call). At CLAUDE_CODE_RUN_PATH:
 * a POST of a grant, answered with the sandboxed command's outcome. A client that goes away
 * withdraws its prompt, or stops its command.
 */
export async function serveHookRequest(
  judge: HookJudge,
  request: IncomingMessage,
  response: ServerResponse,
  pathname = CLAUDE_CODE_HOOK_PATH,
  onRefused: (message: string) => void = () => {},
): Promise<void> {
  if (request.method !== 'POST') {
    response.setHeader('allow', 'POST');
    const what = pathname === CLAUDE_CODE_RUN_PATH ? 'a grant to run ({"grant": "…", "sha256": "…"})' : "Claude Code's hook input";
    sendJsonRpcError(response, 405, -32600, `${pathname} takes a POST of ${what}`);
    return;
  }
  const body = await readJsonBody(request, response);
  // Refused before it became a call (no call id, no step): recorded all the same, as at /mcp.
  if ('unreadable' in body) return onRefused(body.unreadable);
  if (pathname === CLAUDE_CODE_RUN_PATH) {
    const grant = RunGrantSchema.safeParse(body.value);
    if (!grant.success) {
      const issue = grant.error.issues[0];
      const message = `not a grant to run (${issue?.path.join('.') || 'the body'}: ${issue?.message ?? 'unreadable'})`;
      sendJsonRpcError(response, 400, -32602, message);
      return onRefused(message);
    }
    const reply = await judge.runGranted(grant.data, clientGone(response));
    if (!response.destroyed) response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    return;
  }
  const input = HookInputSchema.safeParse(body.value);
  if (!input.success) {
    const message = hookInputProblem(input.error);
    sendJsonRpcError(response, 400, -32602, message);
    return onRefused(message);
  }
  const answer = await judge.answer(input.data, clientGone(response));
  if (response.destroyed) return;
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
}
