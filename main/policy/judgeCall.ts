import { relative } from 'node:path';
import type { ToolManifest } from '../../shared/manifest';
import type { CallParts } from './callParts';
import type { CompiledRule } from './compiledRule';
import { argumentsMatch } from './argumentRule';
import { hostMatches, hostOf, hostTarget } from './hostRule';
import { protectedPathOf, type ResolvedPath } from './pathRule';
import { allowMatches, broadMatches, shellView } from './shellRule';

/** A rule that matched, and the part of the call it matched. */
export interface RuleHit {
  readonly rule: CompiledRule;
  /** The sub-command, path or host; absent when the rule matched the call as a whole. */
  readonly matched?: string;
}

/** What the rules say of one call, before modes and tier defaults. */
export interface Judgement {
  readonly deny?: RuleHit;
  readonly ask?: RuleHit;
  /** Set when an allow covers every part of the call (the first such rule, for provenance). */
  readonly allow?: RuleHit;
  /** A protected path the call touches: an allow does not carry it past a person. */
  readonly protectedPath?: string;
  /** Why no allow can cover the call (an unreadable line, a computed redirection target). */
  readonly notAllowable?: string;
}

/** One thing rules judge: a sub-command, a redirection, a path, a URL, or the call as a whole. */
interface Part {
  /** The tool whose rules judge it (a redirection is judged by write_file or read_file rules). */
  readonly tool: string;
  readonly shown?: string;
  test(rule: CompiledRule, reading: 'allow' | 'broad'): boolean;
  /** Why an allow cannot vouch for it, whatever matches. */
  readonly allowBlocked?: string;
  readonly protectedPath?: string;
}

function pathTest(path: ResolvedPath | undefined) {
  return (rule: CompiledRule, reading: 'allow' | 'broad'): boolean => {
    if (rule.matcher.kind === 'any') return true;
    if (rule.matcher.kind !== 'path' || path === undefined) return false;
    const { test } = rule.matcher.pattern;
    // An allow needs the path as written and where it really leads; a deny or ask holds either.
    return reading === 'allow' ? test(path.real) && test(path.lexical) : test(path.real) || test(path.lexical);
  };
}

function shownPath(path: ResolvedPath, workspace: string): string {
  return path.inWorkspace ?? relative(workspace, path.real);
}

/** The parts of a call, each with how a rule is tested on it. */
function partsOf(manifest: ToolManifest, parts: CallParts, workspace: string): Part[] {
  const found: Part[] = [];
  if (parts.unreadable !== undefined) {
    found.push({ tool: manifest.name, test: (rule) => rule.matcher.kind === 'any', allowBlocked: parts.unreadable });
    return found;
  }
  for (const command of parts.commands ?? []) {
    const view = shellView(command);
    found.push({
      tool: manifest.name,
      shown: command.text,
      test: (rule, reading) =>
        rule.matcher.kind === 'any' || (rule.matcher.kind === 'shell' && (reading === 'allow' ? allowMatches(rule.matcher.pattern, view) : broadMatches(rule.matcher.pattern, view))),
      ...(view.blocked ? { allowBlocked: view.blocked } : {}),
    });
  }
  for (const redirect of parts.redirects) {
    const protectedPath = redirect.access === 'write' && redirect.resolved ? protectedPathOf(redirect.resolved, workspace) : undefined;
    found.push({
      tool: redirect.access === 'write' ? 'write_file' : 'read_file',
      shown: redirect.written,
      test: pathTest(redirect.resolved),
      ...(redirect.resolved ? {} : { allowBlocked: `the redirection ${redirect.written} names a file only known when the line runs` }),
      ...(protectedPath ? { protectedPath } : {}),
    });
  }
  for (const path of parts.paths) {
    const protectedPath = protectedPathOf(path, workspace);
    found.push({ tool: manifest.name, shown: shownPath(path, workspace), test: pathTest(path), ...(protectedPath ? { protectedPath } : {}) });
  }
  for (const url of parts.urls) {
    const target = hostTarget(url);
    found.push({
      tool: manifest.name,
      shown: hostOf(url) ?? url,
      test: (rule) => rule.matcher.kind === 'any' || (rule.matcher.kind === 'host' && target !== undefined && hostMatches(rule.matcher.pattern, target)),
    });
  }
  if (parts.arguments) {
    const args = parts.arguments;
    found.push({ tool: manifest.name, test: (rule, reading) => rule.matcher.kind === 'any' || (rule.matcher.kind === 'arguments' && argumentsMatch(rule.matcher.pattern, args, reading)) });
  }
  if (found.length === 0) found.push({ tool: manifest.name, test: (rule) => rule.matcher.kind === 'any' });
  return found;
}

/**
 * Judges a call by the rules of every layer: deny beats ask beats allow across all of them, with
 * no specificity override. A deny or ask of any one part holds the whole call; an allow holds only
 * when every part (each sub-command, each redirection, each path, each URL) has one.
 */
export function judgeCall(manifest: ToolManifest, parts: CallParts, rulesFor: (tool: string) => readonly CompiledRule[], workspace: string): Judgement {
  const judged = partsOf(manifest, parts, workspace);
  const find = (effect: CompiledRule['effect'], reading: 'allow' | 'broad'): RuleHit | undefined => {
    for (const part of judged) {
      const rule = rulesFor(part.tool).find((candidate) => candidate.effect === effect && part.test(candidate, reading));
      if (rule) return { rule, ...(part.shown !== undefined ? { matched: part.shown } : {}) };
    }
    return undefined;
  };
  const deny = find('deny', 'broad');
  if (deny) return { deny };
  const ask = find('ask', 'broad');
  if (ask) return { ask };
  let first: RuleHit | undefined;
  for (const part of judged) {
    if (part.allowBlocked) return { notAllowable: part.allowBlocked };
    const rule = rulesFor(part.tool).find((candidate) => candidate.effect === 'allow' && part.test(candidate, 'allow'));
    if (!rule) return {};
    first ??= { rule, ...(part.shown !== undefined ? { matched: part.shown } : {}) };
  }
  const protectedPath = judged.find((part) => part.protectedPath)?.protectedPath;
  return { ...(first ? { allow: first } : {}), ...(protectedPath ? { protectedPath } : {}) };
}
