/** What an upstream server's calls look like to the person and the pipeline: its launch, a write's preview, a call's outcome. */
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { Preview } from '../../shared/approval';
import type { ToolError } from '../../shared/errors';
import type { ToolClass, UpstreamServerConfig } from '../../shared/upstream';
import type { RunOutcome } from '../hosts/toolCall';
import { shellQuote } from '../tools/shell/shellQuote';
import { unifiedDiff } from '../tools/unifiedDiff';
import { confinePath } from '../tools/workspacePath';
import type { UpstreamCallOutcome } from './types';

/** The largest file a write's preview reads to show its diff. */
const PREVIEW_FILE_BYTES = 1024 * 1024;

/** A server's answer as the pipeline takes it: a result the server marked as an error fails the call with its text. */
export function runOutcome(server: string, tool: string, outcome: UpstreamCallOutcome): RunOutcome {
  if (!outcome.ok) return outcome;
  if (outcome.isError) {
    const text = textOf(outcome.content) || 'no message';
    const error: ToolError = { code: 'ERUNTIME', message: `${server} says ${tool} failed: ${text}`, details: { content: outcome.content } };
    return { ok: false, error };
  }
  return { ok: true, data: { content: outcome.content, ...(outcome.structuredContent !== undefined ? { structuredContent: outcome.structuredContent } : {}) } };
}

function textOf(content: unknown[]): string {
  return content
    .flatMap((block) => (typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text' ? [String((block as { text?: unknown }).text)] : []))
    .join('\n')
    .slice(0, 4096);
}

/**
 * A write's preview where the gate can see the file: a tool the person classed as writing files,
 * called with an absolute `path` inside the workspace, a string `content` and nothing else, is
 * shown as a diff against the file as it is. Anything else is judged by its arguments: a relative
 * or `~` path is read by the server from where it runs, and another argument (append, encoding,
 * edits) changes what it writes, so a diff would show what may not happen.
 */
export function writePreview(workspace: string, toolClass: ToolClass, input: unknown): Preview {
  const none = (reason: string): Preview => ({ kind: 'none', reason });
  const args = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const plain = Object.keys(args).every((key) => key === 'path' || key === 'content');
  if (!toolClass.sideEffects.includes('FsWrite') || typeof args.path !== 'string' || typeof args.content !== 'string' || !plain || !isAbsolute(args.path)) {
    return none('an upstream server\'s tool: judge it by its arguments');
  }
  let target;
  try {
    target = confinePath(workspace, args.path);
  } catch {
    return none(`${args.path} is outside the workspace, so the gate cannot show what the write changes; judge it by its arguments`);
  }
  let before = '';
  const exists = existsSync(target.absolute);
  if (exists) {
    const stats = lstatSync(target.absolute);
    if (!stats.isFile()) return none(`${target.relative} is not a regular file; judge the call by its arguments`);
    if (stats.size > PREVIEW_FILE_BYTES) return none(`${target.relative} is larger than the preview reads (1 MiB); judge the call by its arguments`);
    before = readFileSync(target.absolute, 'utf8');
  }
  return { kind: 'diff', path: target.relative, before, after: args.content, unified: unifiedDiff(target.relative, before, args.content), exists };
}

/** A command line as a person would type it, each word quoted when it needs to be. */
function commandLine(command: string, args: readonly string[]): string {
  return [command, ...args].map(shellQuote).join(' ');
}

/**
 * The launch a person approves, with everything its launchHash covers but the sandbox (shown on its
 * own): for stdio the folder it starts in and the variables it is given (as written, `$ENV.NAME`
 * placeholders and all: `NODE_OPTIONS` or a secret handed to it change what the command does), then
 * the command line; for http the URL and the headers sent with it.
 */
export function launchText(config: UpstreamServerConfig): string {
  if (config.transport === 'http') {
    const headers = Object.entries(config.headers).map(([name, value]) => shellQuote(`${name}: ${value}`));
    return headers.length > 0 ? `${config.url} with headers ${headers.join(' ')}` : config.url;
  }
  const cwd = config.cwd ? [`cd ${shellQuote(config.cwd)} &&`] : [];
  const env = Object.entries(config.env).map(([name, value]) => `${shellQuote(name)}=${shellQuote(value)}`);
  return [...cwd, ...env, commandLine(config.command, config.args)].join(' ');
}
