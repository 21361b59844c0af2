import { createHash } from 'node:crypto';
import { z } from 'zod';
import { shellQuote } from '../tools/shell/shellQuote';

/** Where `toolgate hook run` asks the gate to run a Bash call it allowed (agents' token, like the hook). */
export const CLAUDE_CODE_RUN_PATH = '/hooks/claude-code/run';

/** Exit status of `toolgate hook run` when the command did not run (or its outcome is unknown): as bash's "cannot execute". */
export const NOT_RUN_EXIT_CODE = 126;

/** The SHA-256 of a command's text (UTF-8), in hex: `printf %s "$command" | sha256sum` gives the same. */
export function commandSha256(command: string): string {
  return createHash('sha256').update(command, 'utf8').digest('hex');
}

/** The one-use grant the gate issued for an allowed Bash call: its id and the hash of the approved text. */
export const RunGrantSchema = z.strictObject({
  grant: z.string().regex(/^[0-9a-f]{32}$/, 'a grant id is 32 lowercase hex digits'),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a command hash is 64 lowercase hex digits (SHA-256)'),
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

/** How the hook command starts Toolgate again: this Node, this Toolgate's CLI and the state folder of the gate it asked. */
export interface ToolgateLauncher {
  node: string;
  cli: string;
  home: string;
}

/**
 * The command Claude Code runs in place of an allowed Bash call: Toolgate's CLI asks the gate to run
 * the approved text, bound to it by the grant and its hash, in the gate's sandbox. Every word is
 * quoted; the comment tells a person reading Claude Code's transcript what it is.
 */
export function sandboxedCommand(launcher: ToolgateLauncher, grant: RunGrant): string {
  const words = [launcher.node, launcher.cli, 'hook', 'run', grant.grant, '--sha256', grant.sha256].map(shellQuote).join(' ');
  return `TOOLGATE_HOME=${shellQuote(launcher.home)} ${words} # Toolgate runs the command it approved in its sandbox`;
}
