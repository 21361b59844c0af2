import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { flag, UsageError, type ParsedArgs } from '../cli/argv';
import type { Io } from '../cli/commands';
import { toolgateRoot } from '../state/paths';
import { readSettingsFile, settingsPath } from '../settings/settings';
import { claudeSettingsFile, hookCommandLine, installClaudeHooks, uninstallClaudeHooks, type SettingsChange } from './claudeSettings';
import { DEFAULT_APPROVAL_SECONDS } from './hookClient';

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

/** A mistyped --project must not install the hooks somewhere new while the real project stays unguarded. */
function requireProjectFolder(folder: string, sub: 'install' | 'uninstall'): void {
  let isFolder = false;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    // Missing, or not reachable: said below.
  }
  if (!isFolder) {
    throw new UsageError(`--project ${folder} is not a folder (it does not exist, or is a file); give the project's own folder, the one Claude Code runs in, to ${sub} the hooks in its .claude/settings.json`);
  }
}

/** `toolgate hook install|uninstall claude-code [--project DIR]`: adds or removes the hooks in Claude Code's settings. */
export function hookInstallCommand(sub: 'install' | 'uninstall', args: ParsedArgs, io: Io): number {
  const [, agent, ...extra] = args.positionals;
  requireClaudeCode(agent, `hook ${sub}`);
  if (extra.length > 0) throw new UsageError(`hook ${sub} claude-code takes no more arguments`);
  const project = flag(args, 'project');
  if (project !== undefined) requireProjectFolder(resolve(project), sub);
  const file = claudeSettingsFile(project === undefined ? undefined : resolve(project));
  const command = hookCommandLine(process.execPath, resolve(toolgateRoot(), 'bin/toolgate.js'), process.env.TOOLGATE_HOME ? io.home : undefined);
  if (sub === 'install') {
    const timeout = Number(flag(args, 'timeout') ?? approvalSeconds(io.home) + 60);
    if (!Number.isInteger(timeout) || timeout < 1) throw new UsageError('--timeout takes a whole number of seconds, e.g. 360');
    io.out(describe(installClaudeHooks(file, command, timeout), 'Toolgate now judges every Claude Code tool (PreToolUse and PostToolUse hooks)', 'Toolgate\'s hooks were already installed'));
    return 0;
  }
  io.out(describe(uninstallClaudeHooks(file, command), 'Toolgate\'s hooks were removed', 'no Toolgate hooks were found'));
  return 0;
}
