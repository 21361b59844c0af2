import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { readJsonBody, sendJsonRpcError, type UnreadableBody } from '../server/httpBody';
import { moveOddArgumentsToMeta } from './rawArguments';

const MAX_SESSIONS = 64;

/** How long close() waits for answers still being written (a denial at shutdown) before ending sessions. */
const DRAIN_MS = 2000;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
}

/** The Streamable HTTP endpoint: one MCP server per session, created on initialize. */
export class McpHttpEndpoint {
  private readonly sessions = new Map<string, Session>();
  /** POST responses not yet finished: calls whose answer is still coming. */
  private readonly inFlight = new Set<ServerResponse>();
  private closed = false;

  constructor(
    private readonly createServer: () => Server,
    /** Told of each request body that could not be read (for the audit). */
    private readonly onUnreadable: (message: string) => void = () => {},
  ) {}

  private unreadable(body: { value: unknown } | UnreadableBody | undefined): body is UnreadableBody {
    if (body === undefined || !('unreadable' in body)) return false;
    this.onUnreadable(body.unreadable);
    return true;
  }

  /** Serves one authenticated request to /mcp. */
  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method === 'POST') {
      this.inFlight.add(response);
      response.once('close', () => this.inFlight.delete(response));
    }
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = this.sessions.get(sessionId);
      if (!session) {
        sendJsonRpcError(response, 404, -32001, 'unknown MCP session (it ended or the gate restarted); initialize a new one');
        return;
      }
      const body = request.method === 'POST' ? await readJsonBody(request, response) : undefined;
      if (this.unreadable(body)) return;
      await session.transport.handleRequest(request, response, body === undefined ? undefined : moveOddArgumentsToMeta(body.value));
      return;
    }
    if (request.method !== 'POST') {
      sendJsonRpcError(response, 400, -32000, 'send an initialize request first (no mcp-session-id header)');
      return;
    }
    const body = await readJsonBody(request, response);
    if (this.unreadable(body)) return;
    if (!isInitializeRequest(body.value)) {
      sendJsonRpcError(response, 400, -32000, 'the first request of a session must be initialize');
      return;
    }
    await this.startSession(request, response, body.value);
  }

  private async startSession(request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
    if (this.closed) {
      sendJsonRpcError(response, 503, -32000, 'the gate is shutting down');
      return;
    }
    const server = this.createServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, server });
        this.evictOldest();
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  }

  private evictOldest(): void {
    while (this.sessions.size > MAX_SESSIONS) {
      const [oldest, session] = this.sessions.entries().next().value as [string, Session];
      this.sessions.delete(oldest);
      void session.server.close().catch(() => {});
    }
  }

  /**
   * Ends every session. Answers still being written get up to DRAIN_MS first: an MCP client does not
   * fail a request whose stream just ends, so a call denied at shutdown must reach it before the
   * session closes. Idempotent.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const deadline = Date.now() + DRAIN_MS;
    while (this.inFlight.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map((session) => session.server.close().catch(() => {})));
  }
}
