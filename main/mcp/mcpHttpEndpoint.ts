import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { readJsonBody, sendJsonRpcError, type UnreadableBody } from '../server/httpBody';
import { OpenRequests } from './agentDeparture';
import { coalesceAnswerWrites } from './coalescedAnswer';
import { prepareBodyForSdk } from './heldArguments';
import { answerDirectly, cancelDirectCalls, plainToolCall, type RequestId } from './directToolCall';
import { directToolCallAnswer, type ToolCallAnswer } from './gateMcpServer';

/** How many sessions the endpoint keeps, and when an unused one is closed. */
export interface SessionLimits {
  /** Past this many sessions, the least recently used one with no open request is closed. */
  maxSessions: number;
  /** A session with no open request for this long is closed by the sweep. */
  idleMs: number;
  /** How often the sweep looks for idle sessions. */
  sweepMs: number;
}

const DEFAULT_LIMITS: SessionLimits = { maxSessions: 256, idleMs: 30 * 60_000, sweepMs: 60_000 };

/** How long close() waits for answers still being written (a denial at shutdown) before ending sessions. */
const DRAIN_MS = 2000;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** Requests of this session still open: POSTs being answered and the client's GET stream. */
  openRequests: number;
  /** The JSON-RPC requests still being answered, withdrawn when their agent leaves. */
  answering: OpenRequests;
  /** When the session last had a request start or finish (ms since the epoch). */
  lastUsed: number;
  /** The session's tools/call answer, when its server is the gate's: plain calls are answered directly. */
  answer: ToolCallAnswer | undefined;
  /** Calls being answered directly, by request id, for a cancel to find. */
  direct: Map<RequestId, AbortController>;
}

/**
 * The Streamable HTTP endpoint: one MCP server per session, created on initialize. Sessions are kept
 * in least-recently-used order; one is closed when it is the least recently used past the cap, or
 * idle too long, and never while one of its requests is open (a connected client's GET stream
 * counts, so a long-lived agent keeps its session however many others come and go).
 */
export class McpHttpEndpoint {
  private readonly sessions = new Map<string, Session>();
  /** POST responses not yet finished: calls whose answer is still coming. */
  private readonly inFlight = new Set<ServerResponse>();
  private readonly limits: SessionLimits;
  private readonly sweepTimer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly createServer: () => Server,
    /** Told of each request body that could not be read (for the audit). */
    private readonly onUnreadable: (message: string) => void = () => {},
    limits: Partial<SessionLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.sweepTimer = setInterval(() => this.closeIdleSessions(), this.limits.sweepMs);
    this.sweepTimer.unref();
  }

  /** How many sessions are open (for tests and diagnostics). */
  sessionCount(): number {
    return this.sessions.size;
  }

  private unreadable(body: { value: unknown } | UnreadableBody | undefined): body is UnreadableBody {
    if (body === undefined || !('unreadable' in body)) return false;
    this.onUnreadable(body.unreadable);
    return true;
  }

  /** Reads a POST body (unless McpRoute already did) and readies it for the SDK; undefined when it was refused (and answered). */
  private async readForSdk(request: IncomingMessage, response: ServerResponse, read?: { value: unknown }): Promise<{ value: unknown } | undefined> {
    const body = read ?? (await readJsonBody(request, response));
    if (this.unreadable(body)) return undefined;
    const prepared = prepareBodyForSdk(body.value);
    if ('value' in prepared) return prepared;
    sendJsonRpcError(response, 400, -32600, prepared.refused);
    this.onUnreadable(prepared.refused);
    return undefined;
  }

  /** Serves one authenticated 2025-era request to /mcp; `read` is its POST body when McpRoute already read it. */
  async handle(request: IncomingMessage, response: ServerResponse, read?: { value: unknown }): Promise<void> {
    if (request.method === 'POST') {
      this.inFlight.add(response);
      response.once('close', () => this.inFlight.delete(response));
      // A POST's answer is one SSE stream that usually ends at once; the client's GET stream stays as the SDK sends it.
      coalesceAnswerWrites(response);
    }
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = this.sessions.get(sessionId);
      if (!session) {
        sendJsonRpcError(response, 404, -32001, 'unknown MCP session (it ended or the gate restarted); initialize a new one');
        return;
      }
      this.markInUse(sessionId, session, response);
      if (request.method !== 'POST') {
        // The agent ends its session: what it still waits for is withdrawn, saying it left, before the SDK closes the session.
        if (request.method === 'DELETE') session.answering.sessionEnded();
        await session.transport.handleRequest(request, response);
        return;
      }
      const body = await this.readForSdk(request, response, read);
      if (!body || !session.answering.watch(response, body.value)) return;
      const call = session.answer ? plainToolCall(request, body.value) : undefined;
      if (call && session.answer) await answerDirectly(call, response, sessionId, session.answer, session.direct);
      else await session.transport.handleRequest(request, response, body.value);
      return;
    }
    if (request.method !== 'POST') {
      sendJsonRpcError(response, 400, -32000, 'send an initialize request first (no mcp-session-id header)');
      return;
    }
    const body = await this.readForSdk(request, response, read);
    if (!body) return;
    if (!isInitializeRequest(body.value)) {
      sendJsonRpcError(response, 400, -32000, 'the first request of a session must be initialize');
      return;
    }
    await this.startSession(request, response, body.value);
  }

  /** Moves the session to the most-recently-used end and counts the request open until its response ends. */
  private markInUse(id: string, session: Session, response: ServerResponse): void {
    this.sessions.delete(id);
    this.sessions.set(id, session);
    session.openRequests++;
    session.lastUsed = Date.now();
    response.once('close', () => {
      session.openRequests--;
      session.lastUsed = Date.now();
    });
  }

  private async startSession(request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
    if (this.closed) {
      sendJsonRpcError(response, 503, -32000, 'the gate is shutting down');
      return;
    }
    const server = this.createServer();
    const direct = new Map<RequestId, AbortController>();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const session: Session = {
          transport,
          server,
          openRequests: 0,
          lastUsed: Date.now(),
          answering: new OpenRequests(transport),
          answer: directToolCallAnswer(server),
          direct,
        };
        this.markInUse(id, session, response);
        this.evictLeastRecentlyUsed();
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
      // As the SDK does for its own calls: a closed session's calls are stopped, and not answered.
      for (const controller of direct.values()) controller.abort();
    };
    // Ahead of the SDK's own handler (connect chains it after this one): a cancel reaches direct calls too.
    transport.onmessage = (message) => cancelDirectCalls(message, direct);
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  }

  /** Closes one session: forgotten here at once, its server and transport closed in the background. */
  private closeSession(id: string, session: Session): void {
    this.sessions.delete(id);
    void session.server.close().catch(() => {});
  }

  /** Past the cap, closes the least recently used sessions that have no open request (the cap yields to busy ones). */
  private evictLeastRecentlyUsed(): void {
    let excess = this.sessions.size - this.limits.maxSessions;
    if (excess <= 0) return;
    for (const [id, session] of this.sessions) {
      if (excess <= 0) break;
      if (session.openRequests > 0) continue;
      this.closeSession(id, session);
      excess--;
    }
  }

  /** The sweep: closes sessions with no open request that have not been used for `idleMs`. */
  private closeIdleSessions(): void {
    if (this.closed) return;
    const cutoff = Date.now() - this.limits.idleMs;
    for (const [id, session] of this.sessions) {
      if (session.openRequests === 0 && session.lastUsed < cutoff) this.closeSession(id, session);
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
    clearInterval(this.sweepTimer);
    const deadline = Date.now() + DRAIN_MS;
    while (this.inFlight.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map((session) => session.server.close().catch(() => {})));
  }
}
