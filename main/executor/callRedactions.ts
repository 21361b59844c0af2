import type { Redactor } from '../secrets/redactor';

/** How long a call's secrets are still redacted from logs after it ended (late or buffered lines). */
const LINGER_MS = 30_000;

/**
 * The redactors of calls that run, or recently ran, with secrets. A tool process's stdout and stderr
 * travel apart from its result: a line may arrive after the call ended, or be finished by the next
 * call's output. So every line is redacted with every recent redactor, not only its call's.
 */
export class CallRedactions {
  private readonly live = new Map<string, { redactor: Redactor; timer?: ReturnType<typeof setTimeout> }>();

  /** Registers a call's redactor while its tool runs. */
  set(callId: string, redactor: Redactor): void {
    if (!redactor.isEmpty) this.live.set(callId, { redactor });
  }

  /** A call has ended: its secrets stay redacted from logs for a while longer. */
  delete(callId: string): void {
    const entry = this.live.get(callId);
    if (!entry || entry.timer) return;
    entry.timer = setTimeout(() => this.live.delete(callId), LINGER_MS);
    entry.timer.unref?.();
  }

  /** A log line with every recent call's secrets replaced by their placeholders. */
  redactLine(line: string): string {
    let redacted = line;
    for (const { redactor } of this.live.values()) redacted = redactor.redactText(redacted);
    return redacted;
  }
}
