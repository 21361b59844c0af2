import type { IncomingMessage, ServerResponse } from 'node:http';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { readJsonBody } from '../server/httpBody';
import type { McpHttpEndpoint } from './mcpHttpEndpoint';
import type { ModernMcpEndpoint } from './modernEndpoint';
import { toWebRequest } from './webExchange';

/**
 * Serves /mcp (after the bearer token was checked) in both protocol eras. A POST's body is read
 * once, here, within the gate's bound (one too large, too costly, too deep or not JSON is refused
 * with a JSON-RPC error and reported to `onUnreadable`, whatever its era); then the v2 SDK's own
 * classifier decides: 2025-era traffic (initialize, requests of a session, its GET stream and
 * DELETE) goes to the session endpoint as before, and a request carrying the 2026-07-28 envelope
 * (or claiming that revision) goes to the stateless endpoint, which owns every answer to it,
 * refusals included.
 */
export class McpRoute {
  constructor(
    private readonly sessions: McpHttpEndpoint,
    private readonly modern: ModernMcpEndpoint,
    private readonly onUnreadable: (message: string) => void,
  ) {}

  /** Serves one authenticated request to /mcp. */
  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method !== 'POST') {
      if (await isLegacyRequest(toWebRequest(request))) await this.sessions.handle(request, response);
      else await this.modern.serve(request, response, undefined);
      return;
    }
    const body = await readJsonBody(request, response);
    if ('unreadable' in body) {
      this.onUnreadable(body.unreadable);
      return;
    }
    // A request of a 2025 session names it (the revision after has no sessions): served as that
    // session's without building the web request the classifier reads, a call's hot path.
    const ofSession = typeof request.headers['mcp-session-id'] === 'string';
    if (ofSession || (await isLegacyRequest(toWebRequest(request), body.value))) await this.sessions.handle(request, response, body);
    else await this.modern.serve(request, response, body);
  }
}
