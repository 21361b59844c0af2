import {
  BRIDGE_EVENT_NAMES,
  BRIDGE_METHOD_NAMES,
  subscriptionName,
  type BridgeEventName,
  type BridgeMethodName,
  type ConsoleBridge,
} from '../../shared/contract';

/** What a transport must offer for a ConsoleBridge to be built on it. */
export interface BridgeTransport {
  /** Sends one request; resolves with the validated response or rejects with a BridgeError. */
  request(method: BridgeMethodName, params: unknown): Promise<unknown>;
  /** Adds a listener for one event; returns its unsubscribe function. */
  subscribe(event: BridgeEventName, listener: (payload: unknown) => void): () => void;
}

/**
 * Builds the named bridge methods from the contract's name lists, so a method or event added to
 * shared/contract.ts reaches the console without a change here. The cast is the one place where the
 * mapped ConsoleBridge type meets the loop that fills it; the transport validates every value.
 */
export function bridgeFromTransport(transport: BridgeTransport): ConsoleBridge {
  const bridge: Record<string, unknown> = {};
  for (const method of BRIDGE_METHOD_NAMES) {
    bridge[method] = (params?: unknown) => transport.request(method, params ?? {});
  }
  for (const event of BRIDGE_EVENT_NAMES) {
    bridge[subscriptionName(event)] = (listener: (payload: unknown) => void) => transport.subscribe(event, listener);
  }
  return Object.freeze(bridge) as unknown as ConsoleBridge;
}
