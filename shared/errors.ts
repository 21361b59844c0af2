import { z } from 'zod';

/** The error codes a call can end with; every layer speaks only these. */
export const ErrorCodeSchema = z.enum([
  /** Input (or output) failed its schema. */
  'EVALIDATION',
  /** No tool of that name is registered. */
  'ENOTFOUND',
  /** A capability or path rule refused the call. */
  'EPERMISSION',
  /** Policy or a person said no (a prompt nobody answered counts as no). */
  'EDENIED',
  /** The tool ran past its deadline and was killed. */
  'ETIMEOUT',
  /** A resource quota (output, memory, queue) was exceeded. */
  'EQUOTA',
  /** The tool process died mid-call. */
  'ECRASH',
  /** The tool threw. */
  'ERUNTIME',
  /** The tool failed its health check (or could not initialize) and cannot be called until it recovers. */
  'EUNAVAILABLE',
]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** A failure as data: what a result, an audit record or the console carries. */
export const ToolErrorSchema = z.object({
  /** Which family of failure this is. */
  code: ErrorCodeSchema,
  /** One readable sentence saying what was wrong and how to fix it. */
  message: z.string(),
  /** Structured particulars (the failing field, the rule that decided, …). */
  details: z.unknown().optional(),
});
export type ToolError = z.infer<typeof ToolErrorSchema>;

/** An infrastructure failure (not a tool's): thrown, never returned as a result. */
export class GateError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'GateError';
  }

  /** The error as result data. */
  toToolError(): ToolError {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}
