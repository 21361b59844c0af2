/** How long a partial line is held back before it is sent anyway (a prompt, a progress bar). */
const HOLD_MS = 150;
/** A partial line longer than this is sent without waiting for its end. */
const MAX_HELD_CHARS = 16 * 1024;

/**
 * Redacts secrets from a call's streamed output. Output arrives in arbitrary pieces, so a secret
 * can be cut in two; each piece is sent up to its last line end and the rest is held until the
 * line is finished (or briefly, when it is not), so redaction sees whole lines.
 */
export class OutputRedaction {
  private readonly held = new Map<string, { text: string; timer: ReturnType<typeof setTimeout> }>();

  constructor(
    /** Replaces every known secret in a text. */
    private readonly redact: (text: string) => string,
    /** Where the redacted output goes. */
    private readonly send: (callId: string, chunk: string) => void,
  ) {}

  /** Takes a piece of a call's output. */
  push(callId: string, chunk: string): void {
    const pending = this.held.get(callId);
    if (pending) clearTimeout(pending.timer);
    const text = (pending?.text ?? '') + chunk;
    const cut = text.lastIndexOf('\n') + 1;
    const ready = text.length > MAX_HELD_CHARS ? text.length : cut;
    if (ready > 0) this.send(callId, this.redact(text.slice(0, ready)));
    const rest = text.slice(ready);
    if (rest.length === 0) {
      this.held.delete(callId);
      return;
    }
    const timer = setTimeout(() => this.flush(callId), HOLD_MS);
    timer.unref?.();
    this.held.set(callId, { text: rest, timer });
  }

  /** Sends what is held for a call now. */
  flush(callId: string): void {
    const pending = this.held.get(callId);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.held.delete(callId);
    this.send(callId, this.redact(pending.text));
  }

  /** Drops everything held (the gate is closing). Idempotent. */
  close(): void {
    for (const { timer } of this.held.values()) clearTimeout(timer);
    this.held.clear();
  }
}
