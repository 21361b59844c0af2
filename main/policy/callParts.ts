import type { SubCommand } from '../../shared/commandPreview';
import { GateError } from '../../shared/errors';
import type { ToolManifest } from '../../shared/manifest';
import { parseCommand } from '../tools/shell/parseCommand';
import { commandPathUses, type PathUse } from './commandPaths';
import { isUpstreamName, judgedPathArguments, SHELL_ARGUMENTS } from './compiledRule';
import { callAccesses, resolvePath, type PathAccess, type PathAnchors, type ResolvedPath } from './pathRule';
import { upstreamPathReaches } from './upstreamPaths';
import type { RedirectedPath } from './shellRule';

/** A shell line as the engine judges it: its parse, or why it could not be read. */
export type ShellFacts = { readonly commands: readonly SubCommand[] } | { readonly unreadable: string };

/** What the executor learns about a call before policy (async work the synchronous decision needs). */
export interface CallFacts {
  readonly shell?: ShellFacts;
  /** The agent's MCP session: grants made for one session hold for its calls only. */
  readonly agentSession?: string;
  /**
   * What the agent wrote for each path argument a front end already made absolute (Claude Code's
   * `~/…`, resolved as the kernel takes it), keyed by that absolute path: reasons name it so.
   */
  readonly pathsAsWritten?: Readonly<Record<string, string>>;
  /**
   * The call is judged again at its turn (executor/steps/judgedAgain.ts), and this was its decision
   * before: a rule's use is counted only when it now decides more strictly (it refuses the call).
   */
  readonly again?: 'allow' | 'ask' | 'deny';
}

/** A file a shell redirection touches, resolved when it can be. */
export interface RedirectPart extends RedirectedPath {
  /** The one file it names; absent when that is only known when the line runs ($x, a glob, after a cd). */
  readonly resolved?: ResolvedPath;
  /** Every file it may name (each match of a glob, each folder a cd may have moved to), for deny and ask rules. */
  readonly reaches: readonly ResolvedPath[];
}

/** A file or folder a call reads or writes beyond its own path arguments (a shell command's arguments, an upstream tool's paths), resolved. */
export interface PathReach extends Omit<PathUse, 'paths' | 'redirect'> {
  readonly paths: readonly ResolvedPath[];
}

/** The parts of one call that rules match: sub-commands and their redirections, paths, URLs. */
export interface CallParts {
  readonly commands?: readonly SubCommand[];
  /** Why the shell line could not be read (then nothing in it can be allowed). */
  readonly unreadable?: string;
  readonly redirects: readonly RedirectPart[];
  readonly paths: readonly ResolvedPath[];
  /** What the tool does to its path arguments, and whether it reaches below a folder it is given (a search). */
  readonly pathAccess: { readonly accesses: readonly PathAccess[]; readonly below: boolean };
  /** Files and folders reached otherwise: judged by deny and ask rules of their access, never needing an allow. */
  readonly reaches: readonly PathReach[];
  readonly urls: readonly string[];
  /** An upstream tool's arguments, which its rules match by name (`github__create_issue(repo=acme/*)`). */
  readonly arguments?: Readonly<Record<string, unknown>>;
}

function stringArgument(input: unknown, name: string): string | undefined {
  const value = typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** Tools that read everything below the folder they are given. */
const READS_BELOW = new Set(['search_files']);

/**
 * The built-in tools whose code is known to act on the very path named (list_dir on a folder's own
 * entries unless told deeper). Any other tool with path arguments (a manifest, WASM or module tool)
 * may reach anything below a folder it is given, so a rule on a path below it counts (fail closed).
 */
const ACTS_ON_NAMED_PATH = new Set(['read_file', 'write_file', 'edit_file', 'delete_path', 'list_dir', 'hash', 'shell_exec']);

/** Whether a call reaches below the folder it names: a search, a listing deeper than the folder's own entries, a tool whose reach is not known. */
function readsBelow(manifest: ToolManifest, input: unknown): boolean {
  if (READS_BELOW.has(manifest.name) || !ACTS_ON_NAMED_PATH.has(manifest.name)) return true;
  const depth = typeof input === 'object' && input !== null ? (input as Record<string, unknown>).depth : undefined;
  return manifest.name === 'list_dir' && typeof depth === 'number' && depth > 1;
}

/** Resolves the paths a use may name; one that cannot be resolved (a loop of links) makes the use unknown. */
function resolvedUse(use: PathUse, anchors: PathAnchors): { paths: ResolvedPath[]; unknown?: string } {
  try {
    // A word naming one path is named as written; a glob's matches by their own paths.
    const written = (path: string) => (use.paths.length === 1 ? use.written : path);
    return { paths: use.paths.map((path) => resolvePath(path, anchors.workspace, anchors, written(path))), ...(use.unknown ? { unknown: use.unknown } : {}) };
  } catch (error) {
    if (!(error instanceof GateError)) throw error;
    return { paths: [], unknown: `${use.written}: ${error.message}` };
  }
}

/** Splits a call into the parts rules look at. */
export function callParts(manifest: ToolManifest, input: unknown, facts: CallFacts, anchors: PathAnchors): CallParts {
  const pathArguments = judgedPathArguments(manifest);
  const named = pathArguments.flatMap((name) => {
    const value = stringArgument(input, name);
    return value === undefined ? [] : [resolvePath(value, anchors.workspace, anchors, facts.pathsAsWritten?.[value])];
  });
  // A path tool called without a path works on the workspace root.
  const paths = pathArguments.length > 0 && named.length === 0 ? [resolvePath('.', anchors.workspace, anchors)] : named;
  const pathAccess = { accesses: callAccesses(manifest), below: readsBelow(manifest, input) };
  // An HTTP tool's fixed endpoint is a URL the call reaches like any URL argument: host rules judge it too.
  const urls = [...(manifest.urlArguments ?? []).flatMap((name) => stringArgument(input, name) ?? []), ...(manifest.endpoints ?? [])];
  if (isUpstreamName(manifest.name)) {
    const args = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
    return { redirects: [], paths, pathAccess, reaches: upstreamPathReaches(manifest, args, anchors), urls, arguments: args };
  }
  if (!SHELL_ARGUMENTS[manifest.name]) return { redirects: [], paths, pathAccess, reaches: [], urls };
  const shell = facts.shell ?? { unreadable: 'the command line was not parsed' };
  if ('unreadable' in shell) return { unreadable: shell.unreadable, redirects: [], paths, pathAccess, reaches: [], urls };
  const cwd = resolvePath(stringArgument(input, 'cwd') ?? '.', anchors.workspace, anchors).real;
  const redirects: RedirectPart[] = [];
  const reaches: PathReach[] = [];
  for (const use of commandPathUses(shell.commands, { cwd, home: anchors.home })) {
    const resolved = resolvedUse(use, anchors);
    if (use.redirect) {
      // An allow vouches for one file: a target known only when the line runs, or several, leaves it to the tier.
      const one = !use.redirect.target.computed && !resolved.unknown && resolved.paths.length > 0 && new Set(resolved.paths.map((path) => path.real)).size === 1;
      redirects.push({ ...use.redirect, reaches: resolved.paths, ...(one ? { resolved: resolved.paths[0]! } : {}) });
      if (resolved.unknown === undefined) continue;
    }
    reaches.push({ accesses: use.accesses, written: use.written, paths: resolved.paths, below: use.below, ...(resolved.unknown ? { unknown: resolved.unknown } : {}) });
  }
  return { commands: shell.commands, redirects, paths, pathAccess, reaches, urls };
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
