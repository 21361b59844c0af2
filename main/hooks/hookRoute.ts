import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonBody, sendJsonRpcError } from '../server/httpBody';
import { hookInputProblem, HookInputSchema } from './hookInput';
import type { HookJudge } from './hookJudge';

/** Where Claude Code's hook command posts its input (with the agents' bearer token, like /mcp). */
export const CLAUDE_CODE_HOOK_PATH = '/hooks/claude-code';

/**
 * Serves one hook request whose token was already checked: a POST of Claude Code's hook input,
 * answered with the JSON the hook prints. A body that is not a hook input is refused 400, naming the
 * field; the hook command then denies the call. A client that goes away withdraws its prompt.
 */
export async function serveHookRequest(judge: HookJudge, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method !== 'POST') {
    response.setHeader('allow', 'POST');
    sendJsonRpcError(response, 405, -32600, `${CLAUDE_CODE_HOOK_PATH} takes a POST of Claude Code's hook input`);
    return;
  }
  const body = await readJsonBody(request, response);
  if ('unreadable' in body) return;
  const input = HookInputSchema.safeParse(body.value);
  if (!input.success) {
    sendJsonRpcError(response, 400, -32602, hookInputProblem(input.error));
    return;
  }
  const gone = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) gone.abort();
  });
  const answer = await judge.answer(input.data, gone.signal);
  if (response.destroyed) return;
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
}
