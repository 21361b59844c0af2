/**
 * The part of the browser's WebSocket the bridge uses. Declared here rather than taken from the DOM
 * library so the bridge compiles and runs under Node too (tests inject a fake with this shape).
 */
export interface WebSocketLike {
  /** 0 connecting, 1 open, 2 closing, 3 closed (the WebSocket constants). */
  readonly readyState: number;
  /** Sends one text frame. */
  send(data: string): void;
  /** Starts the closing handshake. */
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { readonly data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { readonly code: number; readonly reason: string }) => void): void;
  addEventListener(type: 'error', listener: () => void): void;
}

/** A WebSocket constructor: the browser's own, or a fake in tests. */
export type WebSocketConstructor = new (url: string, protocols: string[]) => WebSocketLike;

/** readyState of a socket whose handshake is still under way. */
export const WS_CONNECTING = 0;
/** readyState of an open socket. */
export const WS_OPEN = 1;

/** Close code the server uses when it refuses the access token. */
export const CLOSE_TOKEN_REFUSED = 4401;

/** The subprotocols that carry the protocol version and the access token through the handshake. */
export function bridgeSubprotocols(token: string): string[] {
  return ['toolgate.v1', `toolgate.token.${token}`];
}
