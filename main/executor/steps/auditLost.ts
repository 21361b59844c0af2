import type { ToolError } from '../../../shared/errors';
import { hashCanonical } from '../../../shared/hash';
import type { ToolResult } from '../../../shared/result';

/**
 * The answer to a call whose records could not be committed: its result is withheld, since the log
 * does not hold it (the next start finds the call without an end only if its first records landed).
 */
export function auditLost(result: ToolResult, error: unknown): ToolResult {
  const reason = error instanceof Error ? error.message : String(error);
  const lost: ToolError = {
    code: 'ERUNTIME',
    message: `the audit log could not be written (${reason}); the call's result is withheld. Check the disk holding the Toolgate home, then try again`,
  };
  return { ok: false, error: lost, meta: { ...result.meta, responseHash: hashCanonical(lost) } };
}
