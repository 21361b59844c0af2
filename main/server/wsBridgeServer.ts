import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { BRIDGE_EVENT_NAMES, WsClientMessageSchema, type WsServerMessage } from '../../shared/contract';
import type { ConsoleBackend } from '../bridge/consoleBackend';
import { dispatchBridgeRequest } from '../bridge/dispatch';
import { ConsoleEventQueue, type QueuedEvent } from './consoleEventQueue';
import type { Refusal } from './refusalAudit';
import { foreignHeaders, tokenMatches, type GateTokens } from './requestGuards';

/** The console's subprotocol; the console token travels as a second one, `toolgate.token.<hex>`. */
export const BRIDGE_PROTOCOL = 'toolgate.v1';
const TOKEN_PREFIX = 'toolgate.token.';

/** Close code for a refused token (the console stops reconnecting). */
export const CLOSE_BAD_TOKEN = 4401;

/** Close code for a console that fell too far behind its events (it reconnects and reloads). */
export const CLOSE_FELL_BEHIND = 4408;
/** Bytes of events a console may leave unread before it is let go. */
export const MAX_UNSENT_BYTES = 16 * 1024 * 1024;

/**
 * One frame of events. Whatever a tool or agent put into a payload, one event must never take the
 * gate down: an event that cannot be serialized is dropped and the rest still go.
 */
function eventsFrame(events: readonly QueuedEvent[]): string {
  try {
    return JSON.stringify({ type: 'events', events } satisfies WsServerMessage);
  } catch {
    const sendable = events.filter((event) => {
      try {
        JSON.stringify(event);
        return true;
      } catch {
        return false;
      }
    });
    return JSON.stringify({ type: 'events', events: sendable } satisfies WsServerMessage);
  }
}

/**
 * The headless shell's transport for the console bridge: the same contract as Electron IPC,
 * over a WebSocket on loopback, guarded by Host, Origin and the console token. The agents' MCP
 * token never opens it: every console action (decide, stop, settings) is the person's alone.
 */
export class WsBridgeServer {
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: 1024 * 1024,
    handleProtocols: (protocols) => (protocols.has(BRIDGE_PROTOCOL) ? BRIDGE_PROTOCOL : false),
  });

  constructor(
    private readonly backend: ConsoleBackend,
    private readonly tokens: GateTokens,
    private readonly port: () => number,
    /** Told of each refused connection (for the audit). */
    private readonly onRefused: (refusal: Refusal) => void = () => {},
  ) {}

  /** Takes an HTTP upgrade to /bridge; refuses foreign pages before any handshake. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const foreign = foreignHeaders(request.headers, this.port(), true);
    if (foreign) {
      this.onRefused({ ...foreign, code: 'EPERMISSION', surface: 'console', origin: request.headers.origin });
      socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${foreign.message}\n`);
      return;
    }
    const offered = (request.headers['sec-websocket-protocol'] ?? '').split(',').map((item) => item.trim());
    const presented = offered.find((item) => item.startsWith(TOKEN_PREFIX))?.slice(TOKEN_PREFIX.length);
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      const refusal = this.tokenRefusal(presented);
      if (refusal !== undefined) {
        this.onRefused({ step: 'auth', code: 'EPERMISSION', message: refusal, surface: 'console', origin: request.headers.origin });
        ws.close(CLOSE_BAD_TOKEN, refusal);
        return;
      }
      this.serve(ws);
    });
  }

  /** Why a presented token does not open the console, or undefined when it is the console token. */
  private tokenRefusal(presented: string | undefined): string | undefined {
    if (this.tokens.console === undefined) return "this gate's console is its desktop window; it serves none to a browser";
    if (tokenMatches(presented, this.tokens.console)) return undefined;
    // Said apart so the audit shows an agent reaching for the console, not a stale tab.
    if (tokenMatches(presented, this.tokens.mcp)) return 'the MCP token does not open the console: open the console URL toolgate serve printed';
    return 'the access token was refused';
  }

  private serve(ws: WebSocket): void {
    const reply = (message: WsServerMessage & { type: 'reply' }) => {
      if (ws.readyState !== ws.OPEN) return;
      // A reply never overtakes the events before it: the console sees them in the order they happened.
      queue.flush();
      let text: string;
      try {
        text = JSON.stringify(message);
      } catch (error) {
        // Whatever a tool or agent put into a payload, one message must never take the gate down:
        // a reply that cannot be sent becomes an error reply.
        const failure = { code: 'ERUNTIME', message: `the reply could not be sent: ${(error as Error).message}` };
        text = JSON.stringify({ type: 'reply', id: message.id, reply: { ok: false, error: failure } });
      }
      ws.send(text);
    };
    const sendEvents = (events: readonly QueuedEvent[]) => {
      if (ws.readyState !== ws.OPEN) return;
      // A console that stopped reading (a frozen tab) would otherwise hold the gate's memory without
      // bound: it is let go, and reloads every snapshot when it reconnects.
      if (ws.bufferedAmount > MAX_UNSENT_BYTES) {
        ws.close(CLOSE_FELL_BEHIND, 'the console fell behind the gate; it reconnects and reloads');
        return;
      }
      ws.send(eventsFrame(events));
    };
    const queue = new ConsoleEventQueue(sendEvents);
    const unsubscribers = BRIDGE_EVENT_NAMES.map((event) => this.backend.subscribe(event, (payload) => queue.push(event, payload)));
    ws.on('message', (data) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(data.toString());
      } catch {
        ws.close(1007, 'messages must be JSON');
        return;
      }
      const message = WsClientMessageSchema.safeParse(parsed);
      if (!message.success) {
        ws.close(1008, 'malformed bridge message');
        return;
      }
      void dispatchBridgeRequest(this.backend, message.data.method, message.data.params).then((answer) =>
        reply({ type: 'reply', id: message.data.id, reply: answer }),
      );
    });
    ws.on('close', () => {
      queue.close();
      for (const unsubscribe of unsubscribers) unsubscribe();
    });
  }

  /** Closes every console connection. Idempotent. */
  close(): void {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }
}
