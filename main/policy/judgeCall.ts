import type { ToolManifest } from '../../shared/manifest';
import type { CallParts } from './callParts';
import type { CompiledRule } from './compiledRule';
import { argumentsMatch } from './argumentRule';
import { otherNamesOf, type FileIdentity } from './hardLinks';
import { hostMatches, hostOf, hostTarget } from './hostRule';
import { protectedPathOf, resolvesTo, type PathAccess, type PathPattern, type ResolvedHead, type ResolvedPath } from './pathRule';
import { allowMatches, broadMatches, shellView } from './shellRule';

/** A rule that matched, and the part of the call it matched. */
export interface RuleHit {
  readonly rule: CompiledRule;
  /** The sub-command, path (as written) or host; absent when the rule matched the call as a whole. */
  readonly matched?: string;
  /** Where the matched path resolves, when that reads otherwise than written. */
  readonly resolvesTo?: string;
  /** Why the rule holds the call whole, whatever it names (a line that cannot be read part by part). */
  readonly heldBecause?: string;
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
  /** The tool whose rules judge it (a redirection is judged by write_file or read_file rules); none for a reach. */
  readonly tool?: string;
  /** What it does to a path: deny and ask rules guarding that access, of any tool, hold it too. */
  readonly accesses?: readonly PathAccess[];
  readonly shown?: string;
  /** Where `shown` (a path) resolves, when that reads otherwise than written. */
  readonly resolvesTo?: string;
  test(rule: CompiledRule, reading: 'allow' | 'broad'): boolean;
  /** Why an allow cannot vouch for it, whatever matches. */
  readonly allowBlocked?: string;
  /** It needs no allow of its own (a file a command's arguments reach: the command's allow covers it). */
  readonly noAllowNeeded?: boolean;
  /** Why where it leads is unknown: then no allow covers the call while a deny or ask of its access could. */
  readonly unknown?: string;
  readonly protectedPath?: string;
  /** Why every deny or ask that could apply holds it, whatever it names (an unreadable line). */
  readonly heldWhole?: string;
}

/** Where each rule's folder leads, looked up once per judged call (each lookup costs system calls). */
type HeadLookups = (pattern: PathPattern) => readonly ResolvedHead[];

function headLookups(): HeadLookups {
  const found = new Map<PathPattern, readonly ResolvedHead[]>();
  return (pattern) => {
    let heads = found.get(pattern);
    if (!heads) found.set(pattern, (heads = pattern.heads()));
    return heads;
  };
}

/** Whether a deny or ask holds one of these paths (as written or where they lead, the rule's folder resolved too). */
function broadPathTest(paths: readonly ResolvedPath[], below: boolean, heads: HeadLookups) {
  const named = paths.flatMap((path) => [path.real, path.lexical, ...(path.reachedHere ? [path.reachedHere] : [])]);
  // The files named that have other names (hard links), looked at once, when no rule matched the names as they are.
  let linked: FileIdentity[] | undefined;
  const identities = () => (linked ??= below ? [] : paths.flatMap((path) => otherNamesOf(path.real) ?? []));
  return (rule: CompiledRule): boolean => {
    if (rule.matcher.kind === 'any') return true;
    if (rule.matcher.kind !== 'path') return false;
    const { pattern } = rule.matcher;
    return pattern.covers(named, below, () => heads(pattern), identities);
  };
}

function pathTest(heads: HeadLookups, path: ResolvedPath | undefined, reaches: readonly ResolvedPath[], below = false) {
  const broad = broadPathTest(reaches, below, heads);
  return (rule: CompiledRule, reading: 'allow' | 'broad'): boolean => {
    if (reading === 'broad') return broad(rule);
    if (rule.matcher.kind === 'any') return true;
    if (rule.matcher.kind !== 'path' || path === undefined) return false;
    const { test } = rule.matcher.pattern;
    // An allow needs the path as written and where it really leads, by the rule's glob as written.
    return test(path.real) && test(path.lexical);
  };
}

function writesProtected(accesses: readonly PathAccess[], paths: readonly ResolvedPath[], workspace: string): string | undefined {
  if (!accesses.includes('write')) return undefined;
  for (const path of paths) {
    const found = protectedPathOf(path, workspace);
    if (found) return found;
  }
  return undefined;
}

function optionalResolution(resolved: string | undefined): { resolvesTo?: string } {
  return resolved === undefined ? {} : { resolvesTo: resolved };
}

/** The rule hit on a part: the rule, and what of the call it matched. */
function hitOn(part: Part, rule: CompiledRule): RuleHit {
  if (part.heldWhole !== undefined) return { rule, heldBecause: part.heldWhole };
  return { rule, ...(part.shown !== undefined ? { matched: part.shown } : {}), ...optionalResolution(part.resolvesTo) };
}

/** The parts of a call, each with how a rule is tested on it. */
function partsOf(manifest: ToolManifest, parts: CallParts, workspace: string): Part[] {
  const found: Part[] = [];
  const heads = headLookups();
  if (parts.unreadable !== undefined) {
    // A line the reader cannot read may run any command on any file: every deny or ask of the shell,
    // and of reading or writing a path, may hold it (fail closed); no allow vouches for it.
    found.push({
      tool: manifest.name,
      accesses: ['read', 'write'],
      shown: `the whole line (${parts.unreadable})`,
      test: (_rule, reading) => reading === 'broad',
      allowBlocked: parts.unreadable,
      heldWhole: parts.unreadable,
    });
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
    const protectedPath = redirect.access === 'write' ? writesProtected(['write'], redirect.reaches, workspace) : undefined;
    found.push({
      tool: redirect.access === 'write' ? 'write_file' : 'read_file',
      accesses: [redirect.access],
      shown: redirect.written,
      ...optionalResolution(redirect.resolved && resolvesTo(redirect.resolved)),
      test: pathTest(heads, redirect.resolved, redirect.reaches),
      ...(redirect.resolved ? {} : { allowBlocked: `the redirection ${redirect.written} names a file only known when the line runs` }),
      ...(protectedPath ? { protectedPath } : {}),
    });
  }
  for (const path of parts.paths) {
    const protectedPath = protectedPathOf(path, workspace);
    found.push({
      tool: manifest.name,
      accesses: parts.pathAccess.accesses,
      shown: path.written,
      ...optionalResolution(resolvesTo(path)),
      test: pathTest(heads, path, [path], parts.pathAccess.below),
      ...(protectedPath ? { protectedPath } : {}),
    });
  }
  for (const reach of parts.reaches) {
    const protectedPath = writesProtected(reach.accesses, reach.paths, workspace);
    const broad = broadPathTest(reach.paths, reach.below, heads);
    found.push({
      accesses: reach.accesses,
      shown: reach.written,
      ...optionalResolution(reach.paths.length === 1 ? resolvesTo(reach.paths[0]!) : undefined),
      test: (rule, reading) => reading === 'broad' && broad(rule),
      noAllowNeeded: true,
      ...(reach.unknown ? { unknown: reach.unknown } : {}),
      ...(protectedPath ? { protectedPath } : {}),
    });
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

/** Deny and ask path rules by the access they guard, across tools (for judgeCall). */
export type AccessRules = (access: PathAccess) => readonly CompiledRule[];

/** The deny and ask path rules among `rules` that guard an access (for callers holding a plain list). */
export function accessRulesOf(rules: readonly CompiledRule[]): AccessRules {
  return (access) => rules.filter((rule) => rule.effect !== 'allow' && rule.matcher.kind === 'path' && rule.matcher.pattern.access === access);
}

const NO_ACCESS_RULES: AccessRules = () => [];

/**
 * Judges a call by the rules of every layer: deny beats ask beats allow across all of them, with
 * no specificity override. A deny or ask of any one part holds the whole call; an allow holds only
 * when every part (each sub-command, each redirection, each path, each URL) has one. A deny or ask
 * path rule holds every read (or write) of its path by any tool or shell command: `accessRules`
 * gives those rules by the access they guard; files a command's arguments reach need no allow.
 */
export function judgeCall(
  manifest: ToolManifest,
  parts: CallParts,
  rulesFor: (tool: string) => readonly CompiledRule[],
  workspace: string,
  accessRules: AccessRules = NO_ACCESS_RULES,
): Judgement {
  const judged = partsOf(manifest, parts, workspace);
  const candidates = (part: Part): readonly CompiledRule[] => {
    const own = part.tool === undefined ? [] : rulesFor(part.tool);
    const guarding = (part.accesses ?? []).flatMap((access) => accessRules(access));
    return guarding.length === 0 ? own : [...own, ...guarding];
  };
  const find = (effect: CompiledRule['effect'], reading: 'allow' | 'broad'): RuleHit | undefined => {
    for (const part of judged) {
      const rule = candidates(part).find((candidate) => candidate.effect === effect && part.test(candidate, reading));
      if (rule) return hitOn(part, rule);
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
    if (part.noAllowNeeded) {
      // Where it leads is unknown, and a deny or ask of its access might hold it there: no allow vouches for that.
      const guarded = part.unknown !== undefined && (part.accesses ?? []).some((access) => accessRules(access).length > 0);
      if (guarded) return { notAllowable: `${part.shown}: ${part.unknown}, and a deny or ask rule on paths might hold it` };
      continue;
    }
    if (part.tool === undefined) return {};
    const rule = rulesFor(part.tool).find((candidate) => candidate.effect === 'allow' && part.test(candidate, 'allow'));
    if (!rule) return {};
    first ??= hitOn(part, rule);
  }
  const protectedPath = judged.find((part) => part.protectedPath)?.protectedPath;
  return { ...(first ? { allow: first } : {}), ...(protectedPath ? { protectedPath } : {}) };
}
