import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { GateError } from '../../../shared/errors';
import { isInside } from '../workspacePath';
import type { SourceLoader, SourceLoadOptions } from './manifestFile';
import { fileSha256 } from './sourcePins';
import { runProgram } from './runProgram';
import { checkTemplateFields, fillTemplate } from './templates';

/** Bytes of stdout a program may print before it is stopped (the most output any tool may return). */
const MAX_STDOUT_BYTES = 16 * 1024 * 1024;

/** A subprocess tool's `source`: a program and its arguments, run without a shell. */
export const SubprocessSourceSchema = z
  .object({
    kind: z.literal('subprocess'),
    /** The program's absolute path; its file's hash is pinned when the manifest is reviewed. */
    command: z.string().refine((command) => isAbsolute(command), {
      error: 'must be an absolute path (e.g. /usr/bin/jq): a bare name would be looked up on a PATH nobody reviewed',
    }),
    /** Arguments; each `{{field}}` is replaced inside its one argument and never splits it. */
    args: z.array(z.string()).default([]),
    /** What the program reads on stdin (a template; nothing when absent). */
    stdin: z.string().optional(),
    /** How stdout is read: `text` ({ text }), `json` (the value), or `jsonl` ({ items: one value a line }). */
    output: z.enum(['text', 'json', 'jsonl']).default('text'),
  })
  .strict();
export type SubprocessSource = z.infer<typeof SubprocessSourceSchema>;

/**
 * Loads a subprocess tool: checks the program is there and runnable, that it declares
 * ProcessSpawn (so the gate gives each call a sandbox of its own), and that every template names
 * an input field. Each call runs the program directly (no shell, no PATH lookup) in the workspace.
 */
export const loadSubprocessSource: SourceLoader = async (manifest, manifestPath, options?: SourceLoadOptions) => {
  const parsed = SubprocessSourceSchema.safeParse(manifest.source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GateError('EVALIDATION', `tool manifest ${manifestPath}: source.${issue.path.join('.')}: ${issue.message}`);
  }
  const source = parsed.data;
  if (!manifest.sideEffects.includes('ProcessSpawn')) {
    throw new GateError('EVALIDATION', `tool manifest ${manifestPath}: a subprocess tool starts a program: add "ProcessSpawn" to sideEffects`);
  }
  checkProgram(source.command, manifestPath);
  source.args.forEach((arg, index) => checkTemplateFields(arg, manifest.inputSchema, manifestPath, `source.args[${index}]`));
  if (source.stdin !== undefined) checkTemplateFields(source.stdin, manifest.inputSchema, manifestPath, 'source.stdin');
  return {
    codeFile: source.command,
    execute: async (input, context) => {
      const args = programArguments(source.args, input);
      refuseWorkspaceProgram(source.command, context.workspace, manifest.name);
      checkPinnedProgram(source.command, options?.codeHash, manifest.name);
      const ran = await runProgram({
        command: source.command,
        args,
        stdin: source.stdin === undefined ? undefined : fillTemplate(source.stdin, input),
        cwd: context.workspace,
        maxStdoutBytes: MAX_STDOUT_BYTES,
      });
      if (ran.stdoutCut) {
        throw new GateError('EQUOTA', `${manifest.name}: ${source.command} printed more than ${MAX_STDOUT_BYTES / 1024 / 1024} MiB and was stopped`);
      }
      if (ran.exitCode !== 0) {
        const said = ran.stderr.trim().slice(-2000);
        throw new GateError('ERUNTIME', `${manifest.name}: ${source.command} exited with ${ran.exitCode}${said ? `: ${said}` : ' and printed nothing on stderr'}`, {
          exitCode: ran.exitCode,
        });
      }
      return parseOutput(ran.stdout, source.output, manifest.name);
    },
  };
};

/**
 * The program's arguments with the call's fields in. Each template is one argument whatever its
 * value holds (spaces, quotes, `;`, `$(…)`: nothing reads them but the program). Before any `--`,
 * an argument whose leading `-` a field brought in is refused: the program would take it as an
 * option (`--output=/etc/x`), not as the data the manifest meant.
 */
export function programArguments(templates: readonly string[], input: unknown): string[] {
  const endOfOptions = templates.indexOf('--');
  return templates.map((template, index) => {
    const value = fillTemplate(template, input);
    if (value.includes('\0')) throw new GateError('EVALIDATION', `argument ${index + 1} would hold a NUL byte, which no program argument can carry`);
    const optionPosition = endOfOptions === -1 || index < endOfOptions;
    // Only the template's own text may make an option: a leading `-` that a field brought in (as the whole
    // argument, or as its start in `{{name}}.txt` or `{{a}}{{b}}`) is data that would be read as one.
    if (optionPosition && value.startsWith('-') && !template.startsWith('-')) {
      throw new GateError(
        'EVALIDATION',
        `argument ${index + 1} would be ${JSON.stringify(value.slice(0, 80))}, which the program would read as an option; ` +
          'send a value that does not start with "-" (a manifest can put "--" before it when its program takes one)',
        { argument: index + 1 },
      );
    }
    return value;
  });
}

function checkProgram(command: string, manifestPath: string): void {
  let regular: boolean;
  try {
    regular = statSync(command).isFile();
    accessSync(command, constants.X_OK);
  } catch (error) {
    throw new GateError('EVALIDATION', `tool manifest ${manifestPath}: source.command ${command} cannot be run (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); name an executable file`);
  }
  if (!regular) throw new GateError('EVALIDATION', `tool manifest ${manifestPath}: source.command ${command} is not a file; name the program itself`);
}

/** Refuses a program whose file is no longer the one reviewed (the gate pins it for the tools home). */
/**
 * A program inside the workspace is refused: the agent's own tools write there, so it could swap the
 * file between the hash check and the start. A reviewed program belongs where agents cannot write.
 */
function refuseWorkspaceProgram(command: string, workspace: string, tool: string): void {
  let real: string;
  try {
    real = realpathSync(command);
  } catch {
    return; // not there: running it fails with its own clear error
  }
  if (isInside(workspace, real)) {
    throw new GateError('EPERMISSION', `${tool}: its program ${command} lies in the workspace (${real}), where the agent's tools can rewrite it after it was reviewed; nothing was run. Install it outside the workspace (e.g. ~/.toolgate/tools/bin) and review it again`);
  }
}

function checkPinnedProgram(command: string, pinned: string | undefined, tool: string): void {
  if (pinned === undefined) return;
  const now = fileSha256(command);
  if (now === pinned) return;
  throw new GateError('EPERMISSION', `${tool}: the program ${command} changed since the tool was reviewed or the gate loaded it (sha256 ${now}, pinned ${pinned}); nothing was run. Review it with \`toolgate tools review ${tool}\` (or restart the gate, for a manifest given with --tools)`);
}

/** stdout read as the manifest declares; output that is not what it says is a clear error. */
export function parseOutput(stdout: string, output: SubprocessSource['output'], tool: string): unknown {
  if (output === 'text') return { text: stdout };
  if (output === 'json') return parseJson(stdout, tool, 'its output');
  const lines = stdout.split('\n').filter((line) => line.trim() !== '');
  return { items: lines.map((line, index) => parseJson(line, tool, `line ${index + 1} of its output`)) };
}

function parseJson(text: string, tool: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new GateError('ERUNTIME', `${tool} declares JSON output, but ${what} is not JSON (${(error as Error).message}): ${JSON.stringify(text.slice(0, 200))}`);
  }
}
