import type { BridgeEventName, BridgeEventPayload } from '../../shared/contract';

type Listener<E extends BridgeEventName> = (payload: BridgeEventPayload<E>) => void;

/** The gate's typed event hub: what the console hears about. */
export class GateEvents {
  private readonly listeners = new Map<BridgeEventName, Set<Listener<never>>>();

  constructor(
    /** Takes secrets out of every payload before any listener (the console, a shell) sees it. */
    private readonly redact: <T>(payload: T) => T = (payload) => payload,
  ) {}

  /** Subscribes; returns the unsubscribe function. */
  subscribe<E extends BridgeEventName>(event: E, listener: Listener<E>): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener as Listener<never>);
    return () => set.delete(listener as Listener<never>);
  }

  /** Tells every listener; one failing listener does not stop the rest. */
  emit<E extends BridgeEventName>(event: E, unredacted: BridgeEventPayload<E>): void {
    const listeners = this.listeners.get(event);
    if (!listeners || listeners.size === 0) return;
    const payload = this.redact(unredacted);
    for (const listener of [...listeners]) {
      try {
        (listener as Listener<E>)(payload);
      } catch {
        // listeners belong to shells; the gate goes on
      }
    }
  }

  /** Drops every listener. */
  clear(): void {
    this.listeners.clear();
  }
}
