import type { BridgeEventName, BridgeEventPayload, BridgeHandlers, ConsoleBridge } from '../../shared/contract';
import { bridgeFromTransport } from '../../renderer/bridge/bridgeFromTransport';

/** An in-memory ConsoleBridge: handlers answer requests, emit() pushes events. */
export function fakeBridge(handlers: Partial<BridgeHandlers>): {
  bridge: ConsoleBridge;
  emit<E extends BridgeEventName>(event: E, payload: BridgeEventPayload<E>): void;
  calls: Array<{ method: string; params: unknown }>;
} {
  const listeners = new Map<BridgeEventName, Set<(payload: unknown) => void>>();
  const calls: Array<{ method: string; params: unknown }> = [];
  const bridge = bridgeFromTransport({
    request: async (method, params) => {
      calls.push({ method, params });
      const handler = handlers[method] as ((request: unknown) => Promise<unknown>) | undefined;
      if (!handler) throw new Error(`no fake handler for ${method}`);
      return handler(params);
    },
    subscribe: (event, listener) => {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener);
      return () => set.delete(listener);
    },
  });
  return {
    bridge,
    calls,
    emit: (event, payload) => {
      for (const listener of listeners.get(event) ?? []) listener(payload);
    },
  };
}
