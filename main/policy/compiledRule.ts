import type { RuleEffect, RuleSource } from '../../shared/policy';
import { DEFAULT_BOUNDS, type ToolManifest } from '../../shared/manifest';
import { UPSTREAM_SEPARATOR } from '../../shared/upstream';
import { compileArgumentsPattern, type ArgumentsPattern } from './argumentRule';
import { compileHostPattern, type HostPattern } from './hostRule';
import { compilePathPattern, ruleAccess, type PathAnchors, type PathPattern } from './pathRule';
import { parseRuleText, RuleError } from './ruleText';
import { compileShellPattern, type ShellPattern } from './shellRule';

/** How a tool's specifiers are read: its kind of argument. */
export type MatcherKind = 'any' | 'shell' | 'path' | 'host' | 'arguments';

/** The tools whose argument is a shell command line, and that argument. */
export const SHELL_ARGUMENTS: Readonly<Record<string, string>> = { shell_exec: 'command' };

/** What a rule looks at in a call. */
export type RuleMatcher =
  | { readonly kind: 'any' }
  | { readonly kind: 'shell'; readonly pattern: ShellPattern }
  | { readonly kind: 'path'; readonly pattern: PathPattern }
  | { readonly kind: 'host'; readonly pattern: HostPattern }
  | { readonly kind: 'arguments'; readonly pattern: ArgumentsPattern };

/** A rule ready to match: compiled once per load, never per call. */
export interface CompiledRule {
  readonly text: string;
  readonly tool: string;
  readonly effect: RuleEffect;
  readonly source: RuleSource;
  readonly reason?: string;
  readonly matcher: RuleMatcher;
}

/** The path arguments a rule judges: those naming what the tool touches (a shell's cwd is where it works). */
export function judgedPathArguments(manifest: ToolManifest): string[] {
  return manifest.pathArguments.filter((argument) => !manifest.workingDirectoryArguments?.includes(argument));
}

/** Whether a tool name is an upstream server's tool (`server__tool`). */
export function isUpstreamName(name: string): boolean {
  return name.includes(UPSTREAM_SEPARATOR);
}

/**
 * The manifest rules judge an upstream tool by while its server has not listed it (not started yet,
 * or down): rules naming it are kept, not refused, and read its arguments by name.
 */
export function unlistedUpstream(name: string): ToolManifest {
  return {
    name,
    version: '0.0.0',
    description: `${name}, a tool of an upstream server that has not listed it yet`,
    tier: 'ELEVATED',
    sideEffects: [],
    determinism: 'NonDeterministic',
    capabilities: [],
    bounds: DEFAULT_BOUNDS,
    pathArguments: [],
    supportsDryRun: false,
    inputSchema: { type: 'object' },
    outputSchema: {},
  };
}

/** A tool's manifest for its rules: the registered one, or for an upstream name not listed yet, unlistedUpstream's. */
export function ruleManifest(tools: ToolLookup, name: string): ToolManifest | undefined {
  return tools(name) ?? (isUpstreamName(name) ? unlistedUpstream(name) : undefined);
}

/** Which matcher a tool's specifiers take. */
export function matcherKindOf(manifest: ToolManifest): MatcherKind {
  if (isUpstreamName(manifest.name)) return 'arguments';
  if (SHELL_ARGUMENTS[manifest.name]) return 'shell';
  if ((manifest.urlArguments?.length ?? 0) + (manifest.endpoints?.length ?? 0) > 0) return 'host';
  if (judgedPathArguments(manifest).length > 0) return 'path';
  return 'any';
}

/** What a tool looks up by name when rules are compiled (unknown tools are refused). */
export type ToolLookup = (name: string) => ToolManifest | undefined;

/** Compiles one rule; throws RuleError naming what is wrong and the fix. */
export async function compileRule(
  written: string,
  effect: RuleEffect,
  source: RuleSource,
  context: { tools: ToolLookup; anchors: PathAnchors; reason?: string },
): Promise<CompiledRule> {
  const parsed = parseRuleText(written);
  const manifest = ruleManifest(context.tools, parsed.tool);
  if (!manifest) throw new RuleError(`${JSON.stringify(parsed.tool)} is not a tool of this gate`, 'name a tool that `toolgate tools` lists, spelt the same way');
  const base = { text: parsed.text, tool: parsed.tool, effect, source, ...(context.reason ? { reason: context.reason } : {}) };
  if (parsed.specifier === undefined) return { ...base, matcher: { kind: 'any' } };
  const kind = matcherKindOf(manifest);
  if (kind === 'shell') return { ...base, matcher: { kind, pattern: await compileShellPattern(parsed.specifier) } };
  if (kind === 'host') return { ...base, matcher: { kind, pattern: compileHostPattern(parsed.specifier) } };
  if (kind === 'path') return { ...base, matcher: { kind, pattern: compilePathPattern(parsed.specifier, context.anchors, ruleAccess(manifest)) } };
  if (kind === 'arguments') return { ...base, matcher: { kind, pattern: compileArgumentsPattern(parsed.specifier) } };
  throw new RuleError(`${parsed.tool} takes no specifier: it has no command, path or URL argument`, `write the bare name ${parsed.tool} to match every call of it`);
}
