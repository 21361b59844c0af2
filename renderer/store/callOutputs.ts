/**
 * The output calls streamed (shell_exec's terminal output), kept outside the store: chunks arrive
 * many times a second and only the terminal of their own call needs them.
 */

type Listener = (chunk: string) => void;

/** Calls whose output is kept (the oldest is forgotten first). */
const MAX_CALLS = 50;
/** Characters kept per call (the newest); a terminal opened later replays them. */
const MAX_CHARS_PER_CALL = 512 * 1024;

/** Per-call output with subscriptions; a terminal replays the backlog, then follows. */
export class CallOutputs {
  private readonly outputs = new Map<string, string>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly presence = new Set<() => void>();

  /** Adds a piece of a call's output and hands it to that call's terminals. */
  append(callId: string, chunk: string): void {
    const known = this.outputs.has(callId);
    const kept = (this.outputs.get(callId) ?? '') + chunk;
    this.outputs.set(callId, kept.length > MAX_CHARS_PER_CALL ? kept.slice(kept.length - MAX_CHARS_PER_CALL) : kept);
    if (!known) {
      while (this.outputs.size > MAX_CALLS) this.outputs.delete(this.outputs.keys().next().value!);
      for (const listener of [...this.presence]) listener();
    }
    for (const listener of [...(this.listeners.get(callId) ?? [])]) listener(chunk);
  }

  /** What a call streamed so far (its newest part). */
  backlog(callId: string): string {
    return this.outputs.get(callId) ?? '';
  }

  /** Whether a call streamed anything. */
  has(callId: string): boolean {
    return this.outputs.has(callId);
  }

  /** Follows one call's output; returns the unsubscribe function. */
  follow(callId: string, listener: Listener): () => void {
    let set = this.listeners.get(callId);
    if (!set) {
      set = new Set();
      this.listeners.set(callId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(callId);
    };
  }

  /** Hears when a call streams for the first time (for useSyncExternalStore); returns the unsubscribe function. */
  onNewCall(listener: () => void): () => void {
    this.presence.add(listener);
    return () => this.presence.delete(listener);
  }
}
