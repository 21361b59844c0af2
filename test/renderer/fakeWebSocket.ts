import type { WebSocketLike } from '../../renderer/bridge/webSocketLike';

type Listener = (event: unknown) => void;

/** An in-memory WebSocket: tests drive the server side (open, reply, push, close) by hand. */
export class FakeWebSocket implements WebSocketLike {
  /** Every socket the bridge opened, oldest first. */
  static readonly instances: FakeWebSocket[] = [];

  readyState = 0;
  /** Frames the client sent, parsed. */
  readonly sent: Array<{ id: number; method: string; params: unknown }> = [];
  private readonly listeners = new Map<string, Listener[]>();

  constructor(
    readonly url: string,
    readonly protocols: string[],
  ) {
    FakeWebSocket.instances.push(this);
  }

  /** The socket opened most recently. */
  static latest(): FakeWebSocket {
    const socket = FakeWebSocket.instances.at(-1);
    if (!socket) throw new Error('no socket was opened');
    return socket;
  }

  static reset(): void {
    FakeWebSocket.instances.length = 0;
  }

  // `never` accepts each overload's typed listener; emit() hands every listener the event it expects.
  addEventListener(type: string, listener: (event: never) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener as Listener]);
  }

  send(data: string): void {
    if (this.readyState !== 1) throw new Error('send on a socket that is not open');
    this.sent.push(JSON.parse(data));
  }

  close(code = 1000, reason = ''): void {
    this.serverClose(code, reason);
  }

  /** The handshake succeeds. */
  serverOpen(): void {
    this.readyState = 1;
    this.emit('open');
  }

  /** The server sends a frame (objects are JSON-encoded). */
  serverSend(message: unknown): void {
    this.emit('message', { data: typeof message === 'string' ? message : JSON.stringify(message) });
  }

  /** Replies to the n-th request sent on this socket. */
  serverReply(index: number, reply: unknown): void {
    const request = this.sent[index];
    if (!request) throw new Error(`no request #${index}`);
    this.serverSend({ type: 'reply', id: request.id, reply });
  }

  /** The connection ends (server close, or network loss with 1006). */
  serverClose(code = 1006, reason = ''): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.emit('close', { code, reason });
  }

  private emit(type: string, event?: unknown): void {
    for (const listener of this.listeners.get(type) ?? []) listener(event);
  }
}
