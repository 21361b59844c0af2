import type { BridgeEventName, BridgeEventPayload, BridgeHandlers } from '../../shared/contract';

/** What a shell (Electron IPC or the WebSocket server) needs from the gate to serve the console. */
export interface ConsoleBackend {
  /** One handler per bridge method, called only with validated requests. */
  readonly handlers: BridgeHandlers;
  /** Subscribes to an event; returns the unsubscribe function. */
  subscribe<E extends BridgeEventName>(event: E, listener: (payload: BridgeEventPayload<E>) => void): () => void;
}
