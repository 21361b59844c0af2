import type { IncomingMessage, ServerResponse } from 'node:http';
import { agentLeftReason } from '../approvals/agentLeft';

/**
 * Headers a web Request made from a Node request leaves out: the bearer token (checked at the door;
 * the SDK never needs it, so it never holds it) and the framing of a body the gate already read.
 */
const LEFT_OUT = new Set(['authorization', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/**
 * A fetch-style Request for a Node request whose body (if any) the gate has already read and parsed:
 * the v2 SDK is handed the parsed body beside it. `signal` aborts when the client goes away.
 */
export function toWebRequest(request: IncomingMessage, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || LEFT_OUT.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  // The Host header was checked against the gate's own loopback names before the request got here.
  const url = new URL(request.url ?? '/', `http://${request.headers.host ?? '127.0.0.1'}`);
  return new Request(url, { method: request.method ?? 'GET', headers, ...(signal ? { signal } : {}) });
}

/**
 * An AbortSignal that aborts when the response closes before it was finished: the agent left, as
 * its reason says (a call's handler reads it to withdraw a prompt naming why).
 */
export function abortOnClientGone(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort(new Error(agentLeftReason('its connection to the gate closed before the answer')));
  });
  return controller.signal;
}

/**
 * Writes a fetch-style Response to a Node response: status, headers, then the body as it comes
 * (an SSE stream chunk by chunk, waiting when the socket is full). A client that goes away cancels
 * the body, which ends the SDK's stream.
 */
export async function sendWebResponse(web: Response, response: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  web.headers.forEach((value, name) => {
    headers[name] = value;
  });
  response.writeHead(web.status, headers);
  if (!web.body) {
    response.end();
    return;
  }
  // The headers go now (for an answer coalesced by coalesceAnswerWrites: with its first event, or alone 50 ms on):
  // an agent waiting on a person then knows its call is being answered, and hears a keep-alive later.
  response.flushHeaders();
  const reader = web.body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  response.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (response.destroyed) return;
      if (!response.write(value)) await new Promise((resolve) => response.once('drain', resolve).once('close', resolve));
    }
    response.end();
  } catch {
    // The stream failed or was cancelled mid-way: the client sees its connection end.
    response.destroy();
  } finally {
    response.off('close', cancel);
  }
}
