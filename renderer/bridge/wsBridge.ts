import {
  BridgeError,
  bridgeEvents,
  bridgeMethods,
  type BridgeEventName,
  type BridgeMethodName,
  type BridgeReply,
  type ConsoleBridge,
  type WsClientMessage,
} from '../../shared/contract';
import { bridgeFromTransport } from './bridgeFromTransport';
import type { ConnectionState } from './connectionState';
import { parseServerMessage } from './serverMessage';
import {
  bridgeSubprotocols,
  CLOSE_TOKEN_REFUSED,
  WS_CONNECTING,
  WS_OPEN,
  type WebSocketConstructor,
  type WebSocketLike,
} from './webSocketLike';

/** How to reach the gate's WebSocket bridge. */
export interface WsBridgeOptions {
  /** ws:// or wss:// URL of the bridge endpoint. */
  url: string;
  /** The access token `toolgate serve` printed. */
  token: string;
  /** The WebSocket class: the browser's, or a fake in tests. */
  WebSocketImpl: WebSocketConstructor;
  /** Delay before the first reconnect attempt; it doubles per failed attempt. */
  initialBackoffMs?: number;
  /** Longest delay between reconnect attempts. */
  maxBackoffMs?: number;
  /** Told about frames the bridge had to drop (malformed, or off-contract). */
  onProtocolError?: (problem: string) => void;
}

/** A ConsoleBridge over a WebSocket, with the connection's state. */
export interface WsBridge {
  /** The named methods and subscriptions the console uses. */
  readonly bridge: ConsoleBridge;
  /** Where the connection is now. */
  readonly state: ConnectionState;
  /** Called on every state change; returns the unsubscribe function. */
  onStateChange(listener: (state: ConnectionState) => void): () => void;
  /** Closes for good; pending requests are rejected. Safe to call twice. */
  close(): void;
}

interface PendingRequest {
  method: BridgeMethodName;
  frame: string;
  sent: boolean;
  resolve(value: unknown): void;
  reject(error: BridgeError): void;
}

/** Connects to the gate and keeps reconnecting (with backoff) until closed or the token is refused. */
export function createWsBridge(options: WsBridgeOptions): WsBridge {
  return new WsBridgeClient(options);
}

class WsBridgeClient implements WsBridge {
  readonly bridge: ConsoleBridge;
  private currentState: ConnectionState = 'connecting';
  private socket: WebSocketLike | undefined;
  private nextId = 1;
  private failedAttempts = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly pending = new Map<number, PendingRequest>();
  private readonly eventListeners = new Map<BridgeEventName, Set<(payload: unknown) => void>>();
  private readonly stateListeners = new Set<(state: ConnectionState) => void>();
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;

  constructor(private readonly options: WsBridgeOptions) {
    this.initialBackoffMs = options.initialBackoffMs ?? 250;
    this.maxBackoffMs = options.maxBackoffMs ?? 5_000;
    this.bridge = bridgeFromTransport({
      request: (method, params) => this.request(method, params),
      subscribe: (event, listener) => this.subscribe(event, listener),
    });
    this.connect();
  }

  get state(): ConnectionState {
    return this.currentState;
  }

  onStateChange(listener: (state: ConnectionState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  close(): void {
    if (this.isFinished()) return;
    clearTimeout(this.reconnectTimer);
    this.setState('closed');
    const socket = this.socket;
    this.socket = undefined;
    socket?.close(1000, 'console closed');
    this.rejectAllPending('ECLOSED', 'the console closed its connection to the gate');
  }

  private isFinished(): boolean {
    return this.currentState === 'closed' || this.currentState === 'refused';
  }

  private connect(): void {
    let socket: WebSocketLike;
    try {
      socket = new this.options.WebSocketImpl(this.options.url, bridgeSubprotocols(this.options.token));
    } catch (error) {
      this.report(`could not open ${this.options.url}: ${(error as Error).message}`);
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    // Every handler checks it still belongs to the current socket: a late event of a replaced one is stale.
    socket.addEventListener('open', () => socket === this.socket && this.handleOpen());
    socket.addEventListener('message', (event) => socket === this.socket && this.handleFrame(event.data));
    socket.addEventListener('close', (event) => socket === this.socket && this.handleClose(event.code));
  }

  private handleOpen(): void {
    this.failedAttempts = 0;
    this.setState('open');
    for (const request of this.pending.values()) this.sendIfQueued(request);
  }

  private handleClose(code: number): void {
    this.socket = undefined;
    this.rejectAllPending('EDISCONNECTED', 'the connection to the gate closed before it answered');
    if (code === CLOSE_TOKEN_REFUSED) {
      this.setState('refused');
      return;
    }
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.isFinished()) return;
    this.setState('reconnecting');
    const delay = Math.min(this.maxBackoffMs, this.initialBackoffMs * 2 ** this.failedAttempts);
    this.failedAttempts += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.isFinished()) this.connect();
    }, delay);
  }

  private request(method: BridgeMethodName, params: unknown): Promise<unknown> {
    if (this.currentState === 'refused') {
      return Promise.reject(new BridgeError('ETOKEN', 'the gate refused the access token'));
    }
    if (this.currentState === 'closed') {
      return Promise.reject(new BridgeError('ECLOSED', 'the console closed its connection to the gate'));
    }
    const readyState = this.socket?.readyState;
    if (readyState !== WS_OPEN && readyState !== WS_CONNECTING) {
      return Promise.reject(new BridgeError('EDISCONNECTED', 'the console is not connected to the gate'));
    }
    const id = this.nextId++;
    const message: WsClientMessage = { id, method, params };
    return new Promise((resolve, reject) => {
      const request: PendingRequest = { method, frame: JSON.stringify(message), sent: false, resolve, reject };
      this.pending.set(id, request);
      // While the handshake runs the request waits; handleOpen sends it.
      if (readyState === WS_OPEN) this.sendIfQueued(request);
    });
  }

  private sendIfQueued(request: PendingRequest): void {
    if (request.sent || !this.socket) return;
    request.sent = true;
    this.socket.send(request.frame);
  }

  private subscribe(event: BridgeEventName, listener: (payload: unknown) => void): () => void {
    let listeners = this.eventListeners.get(event);
    if (!listeners) {
      listeners = new Set();
      this.eventListeners.set(event, listeners);
    }
    // A wrapper per subscription, so subscribing the same function twice needs two unsubscribes.
    const entry = (payload: unknown) => listener(payload);
    listeners.add(entry);
    return () => listeners.delete(entry);
  }

  private handleFrame(data: unknown): void {
    const parsed = parseServerMessage(data);
    if (!parsed.ok) return this.report(`dropped ${parsed.problem}`);
    const message = parsed.message;
    if (message.type === 'reply') return this.settle(message.id, message.reply);
    if (message.type === 'event') return this.dispatchEvent(message.event, message.payload);
    for (const { event, payload } of message.events) this.dispatchEvent(event, payload);
  }

  private settle(id: number, reply: BridgeReply<unknown>): void {
    const request = this.pending.get(id);
    if (!request) return this.report(`dropped a reply to unknown request ${id}`);
    this.pending.delete(id);
    if (!reply.ok) return request.reject(new BridgeError(reply.error.code, reply.error.message));
    const checked = bridgeMethods[request.method].response.safeParse(reply.value);
    if (checked.success) return request.resolve(checked.data);
    const issue = checked.error.issues[0];
    const where = issue?.path.join('.') || 'the top';
    request.reject(new BridgeError('EBRIDGE', `${request.method}: the gate's reply is off contract at ${where}: ${issue?.message}`));
  }

  private dispatchEvent(event: string, payload: unknown): void {
    if (!Object.hasOwn(bridgeEvents, event)) return this.report(`dropped unknown event ${JSON.stringify(event)}`);
    const name = event as BridgeEventName;
    const checked = bridgeEvents[name].safeParse(payload);
    if (!checked.success) return this.report(`dropped ${name}: its payload is off contract`);
    // A copy, so a listener that unsubscribes (or subscribes) while we iterate changes nothing now.
    for (const listener of [...(this.eventListeners.get(name) ?? [])]) {
      try {
        listener(checked.data);
      } catch (error) {
        this.report(`a ${name} listener threw: ${(error as Error).message}`);
      }
    }
  }

  private rejectAllPending(code: string, message: string): void {
    const requests = [...this.pending.values()];
    this.pending.clear();
    for (const request of requests) request.reject(new BridgeError(code, message));
  }

  private setState(state: ConnectionState): void {
    if (state === this.currentState) return;
    this.currentState = state;
    for (const listener of [...this.stateListeners]) listener(state);
  }

  private report(problem: string): void {
    (this.options.onProtocolError ?? ((text: string) => console.warn(`[toolgate bridge] ${text}`)))(problem);
  }
}
