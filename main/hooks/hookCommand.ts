import { flag, UsageError } from '../cli/argv';
import type { Io } from '../cli/commands';
import { parseCommandLine, subcommandOf } from '../cli/commandSpec';
import { commandSpec } from '../cli/commandSpecs';
import { answerClaudeCodeHook } from './hookClient';
import { isRunGrant } from './hookWire';
import { runInGate } from './runInGate';

/**
 * `toolgate hook run GRANT --sha256 HASH`: the command the hook gave Claude Code for an allowed Bash
 * call. Its output goes out as the gate hands it on (already plain text), not through the CLI's
 * terminal filter, so Claude Code reads what the command printed.
 */
async function runCommand(positionals: string[], sha256: string | undefined, home: string): Promise<number> {
  const grant = { grant: positionals[0], sha256 };
  if (positionals.length !== 1 || !isRunGrant(grant)) {
    // The schema (and zod with it) loads only to say what is wrong with a grant.
    const { RunGrantSchema } = await import('./bashRun');
    const parsed = RunGrantSchema.safeParse(grant);
    const issue = parsed.success ? undefined : parsed.error.issues[0];
    const why = positionals.length !== 1 ? `takes one grant id, not ${positionals.length}` : `${issue?.path.join('.')}: ${issue?.message}`;
    throw new UsageError(`hook run ${why}; it is the command the hook gives Claude Code (hook run GRANT --sha256 HASH), nothing ran`);
  }
  return runInGate(grant, home, { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) });
}

/**
 * `toolgate hook claude-code`: Claude Code's hook input on stdin, judged by the running gate, its
 * answer on stdout (exit 0 always: the answer says allow, deny or ask). `toolgate hook run`: see
 * runCommand. `toolgate hook install|
 * uninstall claude-code [--project DIR]`: adds or removes the hooks in Claude Code's settings.
 */
export async function hookCommand(argv: string[], io: Io, stdin: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const spec = commandSpec('hook');
  const sub = subcommandOf(spec, argv);
  if (!sub) throw new UsageError('hook takes `claude-code`, `run GRANT --sha256 HASH`, `install claude-code` or `uninstall claude-code`');
  const args = parseCommandLine(sub, argv, `hook ${sub.name}`);
  if (sub.name === 'run') return runCommand(args.positionals.slice(1), flag(args, 'sha256'), io.home);
  if (sub.name === 'claude-code') {
    if (args.positionals.length > 1) throw new UsageError('hook claude-code reads its input from stdin and takes no arguments');
    io.out(await answerClaudeCodeHook(stdin, io.home));
    return 0;
  }
  // Installing and removing read Claude Code's settings and the gate's own: loaded for those alone.
  const { hookInstallCommand } = await import('./hookInstallCommand');
  return hookInstallCommand(sub.name as 'install' | 'uninstall', args, io);
}
