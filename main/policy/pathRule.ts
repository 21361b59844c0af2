import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, join, normalize, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import { GateError } from '../../shared/errors';
import type { ToolManifest } from '../../shared/manifest';
import { protectedMatch, slashed } from '../tools/protectedPaths';
import { isInside, realpathOfLongestExisting } from '../tools/workspacePath';
import { linkedInto, namesBelow, type FileIdentity } from './hardLinks';
import { RuleError } from './ruleText';

/**
 * Path rules (`write_file(src/**)`, `read_file(~/.ssh/**)`, `edit_file(./docs/**)`) are anchored
 * globs (picomatch, dot files included) on absolute paths: bare or `./` is the workspace, `~/` the
 * home folder, `//` the file system root. A call's path is judged by where it really leads
 * (symlinks followed); a deny also holds the path as written. A deny or ask also holds where the
 * rule's own folder leads, looked up at each call (`secret/**` with `secret` a link to `real` holds
 * `real/key.txt`); an allow never does, since whoever writes the workspace can re-point a link.
 */

/** Whether a path is read or written. */
export type PathAccess = 'read' | 'write';

/** One compiled path specifier. */
export interface PathPattern {
  /** The anchored absolute glob. */
  readonly glob: string;
  /** Whether the path matches the glob as written. */
  readonly test: (path: string) => boolean;
  /**
   * Whether a deny or ask holds one of the paths: the glob as written or with its fixed folder
   * resolved through symlinks (`resolved`: heads, or a memo of it), and with `below`, anything the
   * glob could match at or below one; and by another name of the same file (`linked`: the identities
   * of the named files that have several names, hardLinks.ts).
   */
  readonly covers: (paths: readonly string[], below: boolean, resolved?: () => readonly ResolvedHead[], linked?: () => readonly FileIdentity[]) => boolean;
  /** The glob with its fixed folder resolved through symlinks, at load and now (a few system calls: look up once per call). */
  readonly heads: () => readonly ResolvedHead[];
  /** What the rule's tool does to its path: a deny or ask holds that access by every tool and command. */
  readonly access?: PathAccess;
}

/** What a rule of this tool guards: writes when the tool writes files, else reads when it reads them. */
export function ruleAccess(manifest: ToolManifest): PathAccess | undefined {
  if (manifest.sideEffects.includes('FsWrite')) return 'write';
  return manifest.sideEffects.includes('FsRead') ? 'read' : undefined;
}

/** What a call of this tool does to its paths (write_file reads the file it replaces, and writes it). */
export function callAccesses(manifest: ToolManifest): PathAccess[] {
  return [...(manifest.sideEffects.includes('FsRead') ? (['read'] as const) : []), ...(manifest.sideEffects.includes('FsWrite') ? (['write'] as const) : [])];
}

/** Where relative and `~/` specifiers are anchored. */
export interface PathAnchors {
  readonly workspace: string;
  readonly home: string;
}

/** Compiles a path specifier; throws RuleError for an unanchored absolute path. */
export function compilePathPattern(specifier: string, anchors: PathAnchors, access?: PathAccess): PathPattern {
  const text = specifier.trim();
  let glob: string;
  if (text.startsWith('//')) glob = text.slice(1);
  else if (text === '~' || text.startsWith('~/')) glob = `${anchors.home}${text.slice(1)}`;
  else if (text.startsWith('/')) {
    throw new RuleError(`${JSON.stringify(specifier)} starts with a single /, which could mean the workspace or the file system root`, `write //${text.slice(1)} for an absolute path or ./${text.slice(1)} inside the workspace`);
  } else glob = join(anchors.workspace, (text === '.' ? '' : text.replace(/^\.\//, '')) + (text.endsWith('/') ? '**' : ''));
  const matcher = picomatch(glob, { dot: true });
  // The glob's fixed head rules most paths out with one string compare, before the regex.
  const scanned = picomatch.scan(glob);
  const base = scanned.base.includes('\\') ? '' : scanned.base;
  const test = (path: string) => path.startsWith(base) && matcher(path);
  const heads = resolvedHeads(base, scanned.glob);
  const reachesBelow = (head: string, folder: string) => within(folder, head) || (scanned.glob !== '' && within(head, folder));
  const covers = (paths: readonly string[], below: boolean, resolved: () => readonly ResolvedHead[] = heads, linked: () => readonly FileIdentity[] = () => []): boolean => {
    if (paths.some((path) => test(path) || (below && reachesBelow(base, path)))) return true;
    if (resolved().some((head) => paths.some((path) => head.test(path) || (below && reachesBelow(head.base, path))))) return true;
    if (below) return [{ base, test }, ...resolved()].some((head) => linkedBelow(head, paths, anchors.workspace));
    const identities = linked();
    return identities.length > 0 && [{ base, test }, ...resolved()].some((head) => namesAnother(head, identities, anchors.workspace));
  };
  return { glob, test, covers, heads, ...(access ? { access } : {}) };
}

/**
 * Whether a file with several names (`identities`) has one below the rule's folder that the rule
 * matches (hardLinks.ts), looked at up to MAX_INDEXED_ENTRIES entries. For a rule of the file system
 * root (a glob such as `//**` and a file name) the workspace is looked at.
 */
function namesAnother(head: ResolvedHead, identities: readonly FileIdentity[], workspace: string): boolean {
  if (head.base === '') return false;
  const folder = head.base === '/' ? workspace : head.base;
  return identities.some((identity) => namesBelow(folder, identity)?.some(head.test) === true);
}

/**
 * Whether a program working on `folders` recursively reaches, below them, another name of a file
 * the rule matches. Looked for below a folder the rule names; not for a rule that holds the
 * workspace (every file of the workspace would be looked at for each such command).
 */
function linkedBelow(head: ResolvedHead, folders: readonly string[], workspace: string): boolean {
  if (head.base === '' || within(head.base, workspace)) return false;
  return linkedInto(head.base, head.test, folders);
}

/** Whether `child` is `parent` or lies below it (both absolute and normalized: a string compare, no path.relative per rule). */
function within(parent: string, child: string): boolean {
  return child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);
}

/** A rule's glob with its fixed folder resolved through symlinks. */
export interface ResolvedHead {
  readonly base: string;
  readonly test: (path: string) => boolean;
}

/**
 * How long where a rule's folder leads is kept before it is looked up again: a flood of calls
 * costs one lookup per rule per window, not one per call (each is a few system calls). Where it
 * led at load is never dropped, so the window can only delay a deny's reach to a link made since.
 */
export const HEAD_LOOKUP_MS = 50;

/**
 * realpathOfLongestExisting's answer, found without a failed system call for each missing name (an
 * exception costs tens of microseconds, and every deny and ask rule and every path of a call is
 * resolved): the nearest existing name is found by lstat, then resolved by the kernel's realpath.
 * Anything unusual on the way (a dangling link, a loop, a file used as a folder) is left to
 * realpathOfLongestExisting, errors and all.
 */
function realpathQuickly(path: string): string {
  const missing: string[] = [];
  let current = path;
  try {
    for (;;) {
      const stats = lstatSync(current, { throwIfNoEntry: false });
      if (stats && (!stats.isSymbolicLink() || existsSync(current))) return join(realpathSync.native(current), ...missing.reverse());
      const parent = dirname(current);
      if (stats || parent === current) break;
      missing.push(basename(current));
      current = parent;
    }
  } catch {
    // Left to the thorough walk below.
  }
  return realpathOfLongestExisting(path).real;
}

/** Where a rule's folder leads now, or undefined when that cannot be found. */
function headRealpath(base: string): string | undefined {
  try {
    return realpathQuickly(base);
  } catch {
    return undefined;
  }
}

/**
 * The glob with its fixed folder resolved through symlinks (through the nearest existing parent
 * for a folder not made yet): where it led when the rule loaded, and where it leads now (looked
 * up again past HEAD_LOOKUP_MS), so a link made after the load counts and re-pointing a link later
 * does not free the folder it led to. None where the folder leads nowhere else.
 */
function resolvedHeads(base: string, rest: string): () => readonly ResolvedHead[] {
  const compiled = new Map<string, ResolvedHead>();
  const headAt = (real: string): ResolvedHead => {
    let head = compiled.get(real);
    if (!head) {
      const matcher = picomatch(rest === '' ? literalPathGlob(real) : `${literalPathGlob(real)}/${rest}`, { dot: true });
      head = { base: real, test: (path) => path.startsWith(real) && matcher(path) };
      // Bounded: a link re-pointed again and again keeps the first and the latest few.
      if (compiled.size >= 8) compiled.delete([...compiled.keys()][1]!);
      compiled.set(real, head);
    }
    return head;
  };
  const lookUp = (): string | undefined => (base === '' || base === '/' ? undefined : headRealpath(base));
  const atLoad = lookUp();
  let now = { real: atLoad, at: performance.now() };
  return () => {
    if (performance.now() - now.at >= HEAD_LOOKUP_MS) now = { real: lookUp(), at: performance.now() };
    const reals = new Set([atLoad, now.real].filter((real): real is string => real !== undefined && real !== base));
    return [...reals].map(headAt);
  };
}

/** A glob that matches exactly this path, its glob characters escaped (for rules made from a call). */
export function literalPathGlob(path: string): string {
  return path.replace(/[*?[\]{}()!+@\\]/g, '\\$&');
}

/** A path argument as the caller wrote it, and as it resolves: lexically and really, both absolute. */
export interface ResolvedPath {
  /** The text the agent wrote (`~/../x`, `link/key`): what it and a person recognise in a reason. */
  readonly written: string;
  readonly lexical: string;
  readonly real: string;
  /** Workspace-relative (with /) when inside the workspace, for the protected-path check. */
  readonly inWorkspace?: string;
  /** For a path through /proc/self and the like (judged as written): where it leads from the gate's own process. */
  readonly reachedHere?: string;
}

/**
 * Resolves a path argument against a folder, following symlinks as far as the path exists.
 * `written` is the text to name it by when the caller already rewrote what the agent wrote.
 */
export function resolvePath(requested: string, from: string, anchors: PathAnchors, written = requested): ResolvedPath {
  // No file name holds one: said so here, before the file system refuses it in words of its own.
  if (requested.includes('\0')) throw new GateError('EVALIDATION', `the path ${JSON.stringify(written)} holds a NUL byte, which no file name can hold; remove it`);
  const expanded = requested === '~' || requested.startsWith('~/') ? join(anchors.home, requested.slice(1)) : requested;
  const lexical = resolve(from, expanded);
  const followed = realpathQuickly(lexical);
  // A path through /proc/self (or /dev/fd, /dev/stdin…) leads where the process opening it stands:
  // resolved here it would be judged in the gate's own folder, while the tool or Claude Code opens
  // it in its own. It is judged as that path, outside every folder, so no rule of a folder allows it.
  // Where the gate's own process reaches through it is still held by every deny and ask (/proc/self/root is / for all).
  const real = isProcessRelative(lexical) ? lexical : followed !== lexical ? (processLinkOf(lexical) ?? followed) : followed;
  return {
    written,
    lexical,
    real,
    ...(real !== followed ? { reachedHere: followed } : {}),
    // A name that only begins with two dots (`..cache/x`) lies inside: only `..` itself leads out.
    ...(isInside(anchors.workspace, real) ? { inWorkspace: slashed(relative(anchors.workspace, real)) } : {}),
  };
}

/** Paths whose meaning is the opening process's own: its folder, root, open files, standard streams. */
const PROCESS_RELATIVE = /^\/(?:proc\/(?:self|thread-self)|dev\/(?:fd|stdin|stdout|stderr))(?:\/|$)/;

function isProcessRelative(path: string): boolean {
  return PROCESS_RELATIVE.test(path) || path === `/proc/${process.pid}` || path.startsWith(`/proc/${process.pid}/`);
}

/**
 * The process-relative path `path` leads to through its symlinks (a link in the workspace to
 * /proc/self/cwd), if it does: each name is looked at in turn, and a link's target read, as the
 * kernel follows them. Only walked for a path that did not resolve to itself.
 */
function processLinkOf(path: string, hops = 0): string | undefined {
  const names = path.split(sep).filter(Boolean);
  let current: string = sep;
  for (let at = 0; at < names.length; at++) {
    const next = join(current, names[at]!);
    if (isProcessRelative(next)) return join(next, ...names.slice(at + 1));
    const stats = lstatSync(next, { throwIfNoEntry: false });
    if (!stats) return undefined;
    if (stats.isSymbolicLink()) {
      if (hops >= 40) return undefined;
      let target: string;
      try {
        target = readlinkSync(next);
      } catch {
        return undefined;
      }
      return processLinkOf(join(resolve(current, target), ...names.slice(at + 1)), hops + 1);
    }
    current = next;
  }
  return undefined;
}

/**
 * Where a path resolves, when its text alone does not say it (`~/../../root/.ssh/id_rsa` resolves
 * to /root/.ssh/id_rsa); undefined when it reads as written. A reason names the path as written
 * first: the resolved path alone leaves the agent and the person unable to tell which argument it meant.
 */
export function resolvedOtherwise(written: string, resolved: string): string | undefined {
  return written === resolved || normalize(written) === resolved ? undefined : resolved;
}

/** Where a resolved path leads when that reads otherwise than written: workspace-relative inside it, absolute outside. */
export function resolvesTo(path: ResolvedPath): string | undefined {
  if (path.written === path.real) return undefined;
  return resolvedOtherwise(path.written, path.inWorkspace === undefined ? path.real : path.inWorkspace || '.');
}

/** A path in a reason: as written, with where it resolves when that differs: `~/x (resolves to /home/me/x)`. */
export function shownPath(written: string, resolved: string | undefined): string {
  return resolved === undefined ? written : `${written} (resolves to ${resolved})`;
}

/** The protected path (`.git`, `.vscode`, …) a resolved path is or lies in, as written or as resolved. */
export function protectedPathOf(path: ResolvedPath, workspace: string): string | undefined {
  const lexical = isInside(workspace, path.lexical) ? relative(workspace, path.lexical) : undefined;
  for (const candidate of [lexical, path.inWorkspace]) {
    if (candidate === undefined) continue;
    const match = protectedMatch(slashed(candidate));
    if (match) return match.protectedPath;
  }
  return undefined;
}
