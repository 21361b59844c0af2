import type { Redactor } from '../secrets/redactor';

/** Calls whose end is remembered, so output arriving after it is not held for an end that already came. */
const MAX_ENDED_REMEMBERED = 1024;

/**
 * Redacts secrets from a call's streamed output. Output arrives in arbitrary pieces, so a secret
 * can be cut in two (by chance, or by a command printing it a few characters at a time with
 * pauses): each piece is passed on at once except for a tail that could be the start of a secret,
 * which is held until more output shows what it is, or the call ends.
 */
export class OutputRedaction {
  private readonly held = new Map<string, string>();
  private readonly ended = new Set<string>();

  constructor(
    /** The redactor of every secret known now. */
    private readonly redactor: () => Redactor,
    /** Where the redacted output goes. */
    private readonly send: (callId: string, chunk: string) => void,
  ) {}

  /** Takes a piece of a call's output. */
  push(callId: string, chunk: string): void {
    const text = (this.held.get(callId) ?? '') + chunk;
    if (this.ended.has(callId)) {
      this.send(callId, this.redactor().redactText(text));
      return;
    }
    const { settled, held } = this.redactor().redactSettled(text);
    if (settled.length > 0) this.send(callId, settled);
    if (held.length > 0) this.held.set(callId, held);
    else this.held.delete(callId);
  }

  /** The call ended: sends what is held for it, and passes on anything that still comes at once. */
  flush(callId: string): void {
    this.ended.add(callId);
    if (this.ended.size > MAX_ENDED_REMEMBERED) this.ended.delete(this.ended.values().next().value!);
    const pending = this.held.get(callId);
    if (pending === undefined) return;
    this.held.delete(callId);
    this.send(callId, this.redactor().redactText(pending));
  }

  /** Drops everything held (the gate is closing). Idempotent. */
  close(): void {
    this.held.clear();
    this.ended.clear();
  }
}
