import { newCallId } from '../audit/callId';
import type { ErrorCode } from '../../shared/errors';
import type { AuditSink } from '../executor/executor';

/** Why a request was turned away before it became a call. */
export interface Refusal {
  /** Which guard refused it. */
  step: 'auth' | 'host' | 'origin' | 'parse';
  /** The error code the client was given. */
  code: ErrorCode;
  /** What the client was told. */
  message: string;
  /** Where it came in: 'mcp', Claude Code's 'hook', or 'console'. */
  surface: 'mcp' | 'hook' | 'console';
  /** The Origin header, when there was one (never the token). */
  origin?: string;
}

const WINDOW_MS = 60_000;

/**
 * Writes each request refused at the door (token, Host, Origin, unreadable body) to the audit log
 * as a 'rejected' record. At most `perMinute` are written a minute, so that a hostile page cannot
 * flood the log; how many were left out goes into the next record written.
 */
export class RefusalAudit {
  private windowStart = 0;
  private written = 0;
  private suppressed = 0;

  constructor(
    private readonly audit: Pick<AuditSink, 'append'>,
    private readonly perMinute = 30,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records one refusal (or counts it, past the budget). Never throws. */
  record(refusal: Refusal): void {
    const now = this.now();
    if (now - this.windowStart >= WINDOW_MS) {
      this.windowStart = now;
      this.written = 0;
    }
    if (this.written >= this.perMinute) {
      this.suppressed++;
      return;
    }
    this.written++;
    const { step, code, message, surface, origin } = refusal;
    try {
      this.audit.append({
        callId: newCallId(),
        kind: 'rejected',
        payload: {
          step,
          surface,
          error: { code, message },
          ...(origin !== undefined ? { origin: origin.slice(0, 200) } : {}),
          ...(this.suppressed > 0 ? { refusalsNotRecorded: this.suppressed } : {}),
        },
      });
      this.suppressed = 0;
    } catch {
      // a closed log at shutdown: the refusal itself already happened
    }
  }
}
