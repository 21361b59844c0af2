import type { ErrorCode, ToolError } from '../../../shared/errors';

/** A step that refused the call: the error the agent reads, and the step's name for the audit. */
export class StepFailure {
  constructor(
    readonly step: string,
    readonly error: ToolError,
  ) {}

  /** Shorthand for a failure with a code and message. */
  static of(step: string, code: ErrorCode, message: string, details?: unknown): StepFailure {
    return new StepFailure(step, details === undefined ? { code, message } : { code, message, details });
  }
}
