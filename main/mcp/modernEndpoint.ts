import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, type McpHttpHandler, type Server } from '@modelcontextprotocol/server';
import { sendJsonRpcError } from '../server/httpBody';
import { isJsonObject } from '../../shared/jsonLimits';
import { coalesceAnswerWrites } from './coalescedAnswer';
import { prepareBodyForSdk } from './heldArguments';
import { abortOnClientGone, sendWebResponse, toWebRequest } from './webExchange';

/** How long close() waits for answers still being written (a denial at shutdown) before ending the rest. */
const DRAIN_MS = 2000;

/**
 * The /mcp endpoint for the 2026-07-28 revision: stateless, one v2 SDK server per request (made by
 * `createServer`), each request carrying its client's identity in its own `_meta` envelope. Strict:
 * a 2025-era request that reaches it is refused by the SDK (`legacy: 'reject'`); McpRoute sends
 * those to the session endpoint instead. Its body arrives already read within the gate's bound;
 * here it gets the same preparation a 2025 session's does (arguments over the bounds set aside for
 * the pipeline to refuse and audit, odd arguments as raw text, a flooding envelope refused).
 */
export class ModernMcpEndpoint {
  private readonly handler: McpHttpHandler;
  /** Answers still being written, other than listen streams (which stay open until the agent leaves). */
  private readonly inFlight = new Set<ServerResponse>();
  private closed = false;

  constructor(
    createServer: () => Server,
    /** Told of each request body refused before the SDK saw it (for the audit). */
    private readonly onUnreadable: (message: string) => void = () => {},
  ) {
    // Always a stream: a call waiting minutes for a person then sends a keep-alive every 15 s. In
    // 'auto' mode it would send nothing at all until its result, and an agent's HTTP stack gives up
    // on a silent response (Node's fetch after 300 s without headers, as long as a prompt may wait).
    this.handler = createMcpHandler(() => createServer(), { legacy: 'reject', responseMode: 'sse' });
  }

  /**
   * Tells every open `subscriptions/listen` stream that asked for it that the tool list changed:
   * in this revision there is no session to notify, so an agent that wants to hear of changes
   * holds such a stream open (the SDK serves it, acknowledges it and ends it when the agent leaves).
   */
  toolsChanged(): void {
    if (!this.closed) this.handler.notify.toolsChanged();
  }

  /** Serves one authenticated 2026-07-28 request whose body (for a POST) was read and parsed already. */
  async serve(request: IncomingMessage, response: ServerResponse, body: { value: unknown } | undefined): Promise<void> {
    if (this.closed) {
      sendJsonRpcError(response, 503, -32000, 'the gate is shutting down');
      return;
    }
    let parsedBody: unknown;
    if (body) {
      const prepared = prepareBodyForSdk(body.value);
      if ('refused' in prepared) {
        sendJsonRpcError(response, 400, -32600, prepared.refused);
        this.onUnreadable(prepared.refused);
        return;
      }
      parsedBody = prepared.value;
    }
    if (!isListen(parsedBody)) {
      this.inFlight.add(response);
      response.once('close', () => this.inFlight.delete(response));
      // As a 2025 session's answers: a quick answer leaves in one write, a slow one sends its headers first.
      coalesceAnswerWrites(response);
    }
    const web = await this.handler.fetch(toWebRequest(request, abortOnClientGone(response)), body ? { parsedBody } : {});
    await sendWebResponse(web, response);
  }

  /**
   * Ends the endpoint. Answers still being written get up to DRAIN_MS first (a call denied at
   * shutdown must reach its agent); then open exchanges and listen streams are ended. Idempotent.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const deadline = Date.now() + DRAIN_MS;
    while (this.inFlight.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await this.handler.close().catch(() => {});
  }
}

/** Whether a body is a `subscriptions/listen` request: a stream meant to stay open, not an answer being written. */
function isListen(body: unknown): boolean {
  return isJsonObject(body) && body.method === 'subscriptions/listen';
}
