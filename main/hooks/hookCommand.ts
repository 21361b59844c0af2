import { resolve } from 'node:path';
import { flag, UsageError } from '../cli/argv';
import type { Io } from '../cli/commands';
import { parseCommandLine, subcommandOf } from '../cli/commandSpec';
import { commandSpec } from '../cli/commandSpecs';
import { toolgateRoot } from '../state/paths';
import { readSettingsFile, settingsPath } from '../settings/settings';
import { claudeSettingsFile, hookCommandLine, installClaudeHooks, uninstallClaudeHooks, type SettingsChange } from './claudeSettings';
import { RunGrantSchema } from './bashRun';
import { answerClaudeCodeHook, DEFAULT_APPROVAL_SECONDS } from './hookClient';
import { runInGate } from './runInGate';

/** The approval timeout this state folder's gate starts with (from its settings.json), in seconds. */
function approvalSeconds(home: string): number {
  try {
    return readSettingsFile(settingsPath(home)).approvalTimeoutSeconds ?? DEFAULT_APPROVAL_SECONDS;
  } catch {
    return DEFAULT_APPROVAL_SECONDS;
  }
}

/** The one agent whose hooks Toolgate speaks; refuses any other name. */
function requireClaudeCode(agent: string | undefined, usage: string): void {
  if (agent !== 'claude-code') throw new UsageError(`${usage} takes the agent's name: claude-code${agent ? `, not ${JSON.stringify(agent)}` : ''}`);
}

function describe(change: SettingsChange, done: string, nothing: string): string {
  if (!change.changed) return `${nothing} in ${change.file}\n`;
  return `${done} in ${change.file}${change.backup ? ` (the file as it was: ${change.backup})` : ''}\n`;
}

/**
 * `toolgate hook run GRANT --sha256 HASH`: the command the hook gave Claude Code for an allowed Bash
 * call. Its output goes out as the gate hands it on (already plain text), not through the CLI's
 * terminal filter, so Claude Code reads what the command printed.
 */
function runCommand(positionals: string[], sha256: string | undefined, home: string): Promise<number> {
  const grant = RunGrantSchema.safeParse({ grant: positionals[0], sha256 });
  if (positionals.length !== 1 || !grant.success) {
    const issue = grant.success ? undefined : grant.error.issues[0];
    const why = positionals.length !== 1 ? `takes one grant id, not ${positionals.length}` : `${issue?.path.join('.')}: ${issue?.message}`;
    throw new UsageError(`hook run ${why}; it is the command the hook gives Claude Code (hook run GRANT --sha256 HASH), nothing ran`);
  }
  return runInGate(grant.data, home, { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) });
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
  const [, agent, ...extra] = args.positionals;
  if (sub.name === 'run') return runCommand(args.positionals.slice(1), flag(args, 'sha256'), io.home);
  if (sub.name === 'claude-code') {
    if (args.positionals.length > 1) throw new UsageError('hook claude-code reads its input from stdin and takes no arguments');
    io.out(await answerClaudeCodeHook(stdin, io.home));
    return 0;
  }
  requireClaudeCode(agent, `hook ${sub.name}`);
  if (extra.length > 0) throw new UsageError(`hook ${sub.name} claude-code takes no more arguments`);
  const project = flag(args, 'project');
  const file = claudeSettingsFile(project === undefined ? undefined : resolve(project));
  const command = hookCommandLine(process.execPath, resolve(toolgateRoot(), 'bin/toolgate.js'), process.env.TOOLGATE_HOME ? io.home : undefined);
  if (sub.name === 'install') {
    const timeout = Number(flag(args, 'timeout') ?? approvalSeconds(io.home) + 60);
    if (!Number.isInteger(timeout) || timeout < 1) throw new UsageError('--timeout takes a whole number of seconds, e.g. 360');
    io.out(describe(installClaudeHooks(file, command, timeout), 'Toolgate now judges every Claude Code tool (PreToolUse and PostToolUse hooks)', 'Toolgate\'s hooks were already installed'));
    return 0;
  }
  io.out(describe(uninstallClaudeHooks(file, command), 'Toolgate\'s hooks were removed', 'no Toolgate hooks were found'));
  return 0;
}
