import { statSync } from 'node:fs';
import { z } from 'zod';
import type { Preview } from '../../shared/approval';
import { GateError } from '../../shared/errors';
import { defineTool } from '../registry/defineTool';
import { parseCommand } from './shell/parseCommand';
import { runShell } from './shell/runShell';
import { shellPreview } from './shell/shellPreview';
import { OutputTail, plainText } from './shell/terminalOutput';
import { confinePath } from './workspacePath';

/** The longest a command may run, in ms; the gate's own deadline is a little later, so the tool reports first. */
export const MAX_SHELL_TIMEOUT_MS = 120_000;
/** What a command gets when the call names no deadline. */
const DEFAULT_SHELL_TIMEOUT_MS = 60_000;
/** Characters of output kept for the result (the newest); the Live view streams all of it. */
const KEPT_OUTPUT_CHARS = 96 * 1024;

const ShellExecOutputSchema = z.object({
  exitCode: z.number().int().describe("The shell's exit code; 128 + n when signal n ended it (a timeout ends it with SIGKILL: 137)"),
  stdout: z
    .string()
    .describe(
      'What the command printed to stdout, as plain text (colours and other terminal sequences removed; stdout is a ' +
        `pseudo-terminal, so programs colour and line-buffer it as for a person); only the newest ${KEPT_OUTPUT_CHARS / 1024} KiB are kept`,
    ),
  stderr: z
    .string()
    .describe(`What the command printed to stderr, as plain text; only the newest ${KEPT_OUTPUT_CHARS / 1024} KiB are kept`),
  timedOut: z.boolean().describe('Whether the deadline killed the command (and every process it started)'),
  droppedChars: z.number().int().optional().describe('Characters of older output left out of stdout/stderr, when it was longer than kept'),
});
type ShellExecOutput = z.infer<typeof ShellExecOutputSchema>;

/**
 * Runs a shell command line in the workspace. Before anything runs the line is read with a real
 * shell grammar; its dry run is that reading (every sub-command, connector, redirection and
 * substitution) for the person who approves. A line the grammar cannot read is refused.
 */
export const shellExecTool = defineTool({
  name: 'shell_exec',
  version: '1.0.0',
  description:
    'Runs a shell command line (bash -c) in the workspace, or a folder inside it, and returns its exit code and output. ' +
    'A person approves each call after seeing every command the line would run. Returns stdout and stderr apart ' +
    '(as plain text; stdout is a terminal, so programs print as for a person). Runs at most timeoutMs (default 60000), then every process it started is killed.',
  tier: 'RESTRICTED',
  sideEffects: ['ProcessSpawn', 'FsRead', 'FsWrite'],
  determinism: 'NonDeterministic',
  capabilities: ['fs:read', 'fs:write'],
  pathArguments: ['cwd'],
  // The shell works in cwd; it does not change cwd as a whole. What it writes inside is held by the sandbox.
  workingDirectoryArguments: ['cwd'],
  supportsDryRun: true,
  // Room after the command's own deadline for killing it and reporting.
  bounds: { timeoutMs: MAX_SHELL_TIMEOUT_MS + 10_000, maxMemoryMb: 1024, maxOutputBytes: 128 * 1024 },
  input: z
    .object({
      command: z.string().min(1).max(64 * 1024).describe('The command line, as typed at a bash prompt'),
      cwd: z.string().min(1).optional().describe('Working directory, relative to the workspace root (default: the root)'),
      timeoutMs: z
        .number()
        .int()
        .positive()
        .max(MAX_SHELL_TIMEOUT_MS)
        .optional()
        .describe(`Deadline in ms (at most ${MAX_SHELL_TIMEOUT_MS}; default ${DEFAULT_SHELL_TIMEOUT_MS})`),
    })
    .strict(),
  output: ShellExecOutputSchema,
  execute: async (input, context): Promise<Preview | ShellExecOutput> => {
    const cwd = confinePath(context.workspace, input.cwd ?? '.', 'cwd');
    if (!cwd.exists || !statSync(cwd.absolute).isDirectory()) {
      throw new GateError('EVALIDATION', `cwd ${JSON.stringify(input.cwd)} is not a folder in the workspace; nothing was run`);
    }
    if (context.dryRun) return shellPreview(input.command, { workspace: context.workspace, cwd: cwd.absolute }, cwd.relative);
    // Read first in a real run too: a line the grammar refuses never reaches a shell.
    await parseCommand(input.command);

    const stdout = new OutputTail(KEPT_OUTPUT_CHARS);
    const stderr = new OutputTail(KEPT_OUTPUT_CHARS);
    const exit = await runShell({
      command: input.command,
      cwd: cwd.absolute,
      timeoutMs: input.timeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS,
      env: shellEnvironment(),
      onOutput: (chunk, stream) => {
        (stream === 'stderr' ? stderr : stdout).push(chunk);
        // The Live view is a terminal without LF-to-CRLF conversion; only the pty's output has CRLF already.
        context.emit?.(stream === 'terminal' ? chunk : chunk.replace(/(?<!\r)\n/g, '\r\n'));
      },
    });
    const dropped = stdout.dropped + stderr.dropped;
    return {
      exitCode: exit.exitCode,
      stdout: plainText(stdout.text()),
      stderr: plainText(stderr.text()),
      timedOut: exit.timedOut,
      ...(dropped > 0 ? { droppedChars: dropped } : {}),
    };
  },
});

/** The shell's environment: the tool process's own (already an allowlist the gate chose). */
function shellEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  return env;
}
