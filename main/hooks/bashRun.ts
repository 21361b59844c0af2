import { createHash } from 'node:crypto';
import { z } from 'zod';
import { COMMAND_SHA256, GRANT_ID } from './hookWire';

export { CLAUDE_CODE_RUN_PATH, NOT_RUN_EXIT_CODE, sandboxedCommand, type ToolgateLauncher } from './hookWire';

/** The SHA-256 of a command's text (UTF-8), in hex: `printf %s "$command" | sha256sum` gives the same. */
export function commandSha256(command: string): string {
  return createHash('sha256').update(command, 'utf8').digest('hex');
}

/** The one-use grant the gate issued for an allowed Bash call: its id and the hash of the approved text. */
export const RunGrantSchema = z.strictObject({
  grant: z.string().regex(GRANT_ID, 'a grant id is 32 lowercase hex digits'),
  sha256: z.string().regex(COMMAND_SHA256, 'a command hash is 64 lowercase hex digits (SHA-256)'),
});
export type RunGrant = z.infer<typeof RunGrantSchema>;

/** What the gate answers `toolgate hook run`: the sandboxed command's output and exit status, or why nothing ran. */
export const BashRunReplySchema = z.discriminatedUnion('ran', [
  z.strictObject({
    ran: z.literal(true),
    /** The command's exit status (the gate's failure after it started, e.g. a limit, gives 1 unless the command failed itself). */
    exitCode: z.number().int(),
    stdout: z.string(),
    /** The command's stderr, then the gate's own word when it stopped or undid something. */
    stderr: z.string(),
  }),
  z.strictObject({ ran: z.literal(false), message: z.string() }),
]);
export type BashRunReply = z.infer<typeof BashRunReplySchema>;
