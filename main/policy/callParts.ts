import type { SubCommand } from '../../shared/commandPreview';
import { GateError } from '../../shared/errors';
import type { ToolManifest } from '../../shared/manifest';
import { parseCommand } from '../tools/shell/parseCommand';
import { isUpstreamName, judgedPathArguments, SHELL_ARGUMENTS } from './compiledRule';
import { resolvePath, type PathAnchors, type ResolvedPath } from './pathRule';
import { redirectedPaths, type RedirectedPath } from './shellRule';

/** A shell line as the engine judges it: its parse, or why it could not be read. */
export type ShellFacts = { readonly commands: readonly SubCommand[] } | { readonly unreadable: string };

/** What the executor learns about a call before policy (async work the synchronous decision needs). */
export interface CallFacts {
  readonly shell?: ShellFacts;
  /** The agent's MCP session: grants made for one session hold for its calls only. */
  readonly agentSession?: string;
}

/** A file a shell redirection touches, resolved when it can be. */
export interface RedirectPart extends RedirectedPath {
  /** Absent when the target is computed when the line runs ($x, a glob). */
  readonly resolved?: ResolvedPath;
}

/** The parts of one call that rules match: sub-commands and their redirections, paths, URLs. */
export interface CallParts {
  readonly commands?: readonly SubCommand[];
  /** Why the shell line could not be read (then nothing in it can be allowed). */
  readonly unreadable?: string;
  readonly redirects: readonly RedirectPart[];
  readonly paths: readonly ResolvedPath[];
  readonly urls: readonly string[];
  /** An upstream tool's arguments, which its rules match by name (`github__create_issue(repo=acme/*)`). */
  readonly arguments?: Readonly<Record<string, unknown>>;
}

function stringArgument(input: unknown, name: string): string | undefined {
  const value = typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** Splits a call into the parts rules look at. */
export function callParts(manifest: ToolManifest, input: unknown, facts: CallFacts, anchors: PathAnchors): CallParts {
  const pathArguments = judgedPathArguments(manifest);
  const named = pathArguments.flatMap((name) => {
    const value = stringArgument(input, name);
    return value === undefined ? [] : [resolvePath(value, anchors.workspace, anchors)];
  });
  // A path tool called without a path works on the workspace root.
  const paths = pathArguments.length > 0 && named.length === 0 ? [resolvePath('.', anchors.workspace, anchors)] : named;
  const urls = (manifest.urlArguments ?? []).flatMap((name) => stringArgument(input, name) ?? []);
  if (isUpstreamName(manifest.name)) {
    const args = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
    return { redirects: [], paths, urls, arguments: args };
  }
  if (!SHELL_ARGUMENTS[manifest.name]) return { redirects: [], paths, urls };
  const shell = facts.shell ?? { unreadable: 'the command line was not parsed' };
  if ('unreadable' in shell) return { unreadable: shell.unreadable, redirects: [], paths, urls };
  const cwd = resolvePath(stringArgument(input, 'cwd') ?? '.', anchors.workspace, anchors).real;
  const redirects = shell.commands.flatMap((command) =>
    redirectedPaths(command).map((redirect) => ({
      ...redirect,
      ...(redirect.target.computed ? {} : { resolved: resolvePath(redirect.target.value, cwd, anchors) }),
    })),
  );
  return { commands: shell.commands, redirects, paths, urls };
}

/** Parses a shell tool's command line for the decision; an unreadable line is a fact too (never allowed). */
export async function prepareFacts(manifest: ToolManifest, input: unknown): Promise<CallFacts> {
  const argument = SHELL_ARGUMENTS[manifest.name];
  if (!argument) return {};
  const command = stringArgument(input, argument);
  if (command === undefined) return { shell: { unreadable: `the ${argument} argument is not text` } };
  try {
    return { shell: { commands: await parseCommand(command) } };
  } catch (error) {
    if (error instanceof GateError) return { shell: { unreadable: error.message } };
    throw error;
  }
}
