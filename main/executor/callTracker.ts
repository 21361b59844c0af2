import type { CallSnapshot } from '../../shared/call';
import { inertText } from '../../shared/inertText';

/** How many calls are kept for the Live view (the audit keeps everything). */
export const KEEP = 500;

/** The recent calls as the Live view shows them; each change is announced. */
export class CallTracker {
  private readonly calls = new Map<string, CallSnapshot>();

  constructor(private readonly onUpdate: (snapshot: CallSnapshot) => void) {}

  /** Starts tracking a call. */
  start(snapshot: CallSnapshot): void {
    this.calls.set(snapshot.callId, snapshot);
    if (this.calls.size > KEEP) {
      const oldest = this.calls.keys().next().value;
      if (oldest !== undefined) this.calls.delete(oldest);
    }
    this.onUpdate(snapshot);
  }

  /** Puts back calls of an earlier gate (newest first), below any tracked now; nothing is announced. */
  restore(history: readonly CallSnapshot[]): void {
    const current = [...this.calls.entries()];
    this.calls.clear();
    for (const call of history.slice(0, KEEP).reverse()) this.calls.set(call.callId, inert(call) as CallSnapshot);
    for (const [callId, call] of current) {
      this.calls.delete(callId);
      this.calls.set(callId, call);
    }
    while (this.calls.size > KEEP) {
      const oldest = this.calls.keys().next().value;
      if (oldest === undefined) break;
      this.calls.delete(oldest);
    }
  }

  /** Changes a call's snapshot and announces it. */
  update(callId: string, change: Partial<CallSnapshot>): void {
    const current = this.calls.get(callId);
    if (!current) return;
    const next = { ...current, ...inert(change) };
    this.calls.set(callId, next);
    this.onUpdate(next);
  }

  /** The recent calls, newest first. */
  list(): CallSnapshot[] {
    return [...this.calls.values()].reverse();
  }
}

/** A tool's text as the console may show it: terminal escapes and other control characters made visible. */
function inert(change: Partial<CallSnapshot>): Partial<CallSnapshot> {
  if (typeof change.data !== 'string' && !change.error) return change;
  const shown = { ...change };
  if (typeof shown.data === 'string') shown.data = inertText(shown.data);
  if (shown.error) shown.error = { ...shown.error, message: inertText(shown.error.message) };
  return shown;
}
