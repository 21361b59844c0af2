import type { IncomingMessage, ServerResponse } from 'node:http';
import { SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject } from '../../shared/jsonLimits';
import type { CallNotification, ToolCallAnswer } from './gateMcpServer';

/**
 * A session's plain tools/call answered by the gate itself, in the SDK's own wire form, instead of
 * through the SDK's Streamable HTTP transport. That transport turns each Node request into a web
 * Request and its answer into a web Response and a stream (through @hono/node-server), and checks
 * the message, the call's params and its result with zod, again, after the gate has bounded and
 * validated them; for a call's hot path that was a fifth of the gate's CPU. Everything else (an
 * initialize, a batch, a notification, a GET or DELETE, a call asking for a task, any header the
 * transport would question) still goes to the SDK, which answers it as before.
 */

/** A JSON-RPC request id, as MCP allows it. */
export type RequestId = string | number;

/** A tools/call the direct path may answer: one request, only the keys MCP names, with well-formed params. */
export interface PlainToolCall {
  id: RequestId;
  params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> };
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAM_KEYS = new Set(['name', 'arguments', '_meta']);

/** How often a call waiting (for a person, or a slow tool) sends a comment, as the SDK does, so no proxy closes its idle stream. */
const KEEPALIVE_MS = 15_000;

/**
 * The call in a POST of an established session when the direct path can answer it exactly as the
 * SDK's transport would; undefined sends it to the SDK (for its answer, or its refusal).
 */
export function plainToolCall(request: IncomingMessage, body: unknown): PlainToolCall | undefined {
  if (!isJsonObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined;
  const { id, params } = body;
  if (!(typeof id === 'string' || Number.isSafeInteger(id)) || !isJsonObject(params)) return undefined;
  for (const key of Object.keys(body)) if (!REQUEST_KEYS.has(key)) return undefined;
  for (const key of Object.keys(params)) if (!PARAM_KEYS.has(key)) return undefined;
  if (typeof params.name !== 'string') return undefined;
  if (params.arguments !== undefined && !isJsonObject(params.arguments)) return undefined;
  if (params._meta !== undefined && !isJsonObject(params._meta)) return undefined;
  if (!acceptsBoth(request.headers.accept) || !isPlainJson(request.headers['content-type'])) return undefined;
  const version = request.headers['mcp-protocol-version'];
  if (version !== undefined && (typeof version !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(version))) return undefined;
  return { id: id as RequestId, params: params as PlainToolCall['params'] };
}

/** The transport's own test: Accept names both kinds of answer (a list, so a substring test). */
function acceptsBoth(accept: string | undefined): boolean {
  return accept !== undefined && accept.includes('application/json') && accept.includes('text/event-stream');
}

/** `application/json`, with a charset at most; any other spelling is the SDK's to judge. */
function isPlainJson(type: string | undefined): boolean {
  if (type === undefined) return false;
  const lower = type.toLowerCase().replace(/\s+/g, '');
  return lower === 'application/json' || lower === 'application/json;charset=utf-8';
}

/** One SSE event as the SDK writes it. */
function sseEvent(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * Answers `call` on `response`: as one JSON object when nothing had to go ahead of its result (or
 * its protocol error), else as an SSE stream of its notifications as they came, then the result.
 * `calls` holds the call's abort controller while it runs, for a cancel to find.
 */
export async function answerDirectly(
  call: PlainToolCall,
  response: ServerResponse,
  sessionId: string,
  answer: ToolCallAnswer,
  calls: Map<RequestId, AbortController>,
): Promise<void> {
  const controller = new AbortController();
  calls.set(call.id, controller);
  const headers = {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'mcp-session-id': sessionId,
  };
  const open = () => response.writable && !response.writableEnded;
  const write = (text: string) => {
    if (!open()) return;
    if (!response.headersSent) response.writeHead(200, headers);
    response.write(text);
  };
  const keepalive = setInterval(() => write(': keepalive\n\n'), KEEPALIVE_MS);
  keepalive.unref();
  const sendNotification = async (notification: CallNotification) => {
    if (!controller.signal.aborted) write(sseEvent({ jsonrpc: '2.0', ...notification } as JSONRPCMessage));
  };
  let message: JSONRPCMessage | undefined;
  try {
    const result = await answer(call.params, { sessionId, signal: controller.signal, sendNotification });
    message = { result, jsonrpc: '2.0', id: call.id } as JSONRPCMessage;
  } catch (error) {
    const { code, message: text, data } = error as { code?: unknown; message?: unknown; data?: unknown };
    message = {
      jsonrpc: '2.0',
      id: call.id,
      error: { code: Number.isSafeInteger(code) ? (code as number) : -32603, message: typeof text === 'string' ? text : 'Internal error', ...(data !== undefined ? { data } : {}) },
    };
  } finally {
    clearInterval(keepalive);
    if (calls.get(call.id) === controller) calls.delete(call.id);
  }
  if (!open()) return;
  // A cancelled call is not answered (as the SDK does); its stream just ends.
  if (controller.signal.aborted) message = undefined;
  if (response.headersSent || message === undefined) {
    if (!response.headersSent) response.writeHead(200, headers);
    response.end(message === undefined ? '' : sseEvent(message));
    return;
  }
  // Nothing went ahead of the answer: it is the one JSON object MCP lets a server answer a POST with
  // (the SDK's JSON response mode), which an agent reads without an event-stream parser.
  const body = JSON.stringify(message);
  response.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': sessionId, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/**
 * Aborts the direct calls a message cancels: an agent's `notifications/cancelled`, or the one the
 * gate hands the session when the agent left. The SDK gets the message too, for its own calls.
 */
export function cancelDirectCalls(message: unknown, calls: Map<RequestId, AbortController>): void {
  const messages = Array.isArray(message) ? message : [message];
  for (const one of messages) {
    if (!isJsonObject(one) || one.method !== 'notifications/cancelled' || !isJsonObject(one.params)) continue;
    const { requestId, reason } = one.params;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') continue;
    calls.get(requestId)?.abort(typeof reason === 'string' ? reason : undefined);
  }
}
