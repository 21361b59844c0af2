import type { Redactor } from '../secrets/redactor';

/**
 * The redactor of each call that is running with secrets, by call id, so the lines its tool process
 * logs are redacted too: the pool knows call ids, not secrets.
 */
export class CallRedactions {
  private readonly byCall = new Map<string, Redactor>();

  /** Registers a call's redactor while its tool runs. */
  set(callId: string, redactor: Redactor): void {
    if (!redactor.isEmpty) this.byCall.set(callId, redactor);
  }

  /** Forgets a call once it has ended. */
  delete(callId: string): void {
    this.byCall.delete(callId);
  }

  /** A log line of a call with its secrets replaced by their placeholders. */
  redactLine(callId: string | undefined, line: string): string {
    const redactor = callId === undefined ? undefined : this.byCall.get(callId);
    return redactor ? redactor.redactText(line) : line;
  }
}
