import { isAbsolute, join, relative, resolve } from 'node:path';
import picomatch from 'picomatch';
import { protectedMatch, slashed } from '../tools/protectedPaths';
import { realpathOfLongestExisting } from '../tools/workspacePath';
import { RuleError } from './ruleText';

/**
 * Path rules (`write_file(src/**)`, `read_file(~/.ssh/**)`, `edit_file(./docs/**)`) are anchored
 * globs (picomatch, dot files included) on absolute paths: bare or `./` is the workspace, `~/` the
 * home folder, `//` the file system root. A call's path is judged by where it really leads
 * (symlinks followed); a deny also holds the path as written.
 */

/** One compiled path specifier. */
export interface PathPattern {
  /** The anchored absolute glob. */
  readonly glob: string;
  readonly test: (path: string) => boolean;
}

/** Where relative and `~/` specifiers are anchored. */
export interface PathAnchors {
  readonly workspace: string;
  readonly home: string;
}

/** Compiles a path specifier; throws RuleError for an unanchored absolute path. */
export function compilePathPattern(specifier: string, anchors: PathAnchors): PathPattern {
  const text = specifier.trim();
  let glob: string;
  if (text.startsWith('//')) glob = text.slice(1);
  else if (text === '~' || text.startsWith('~/')) glob = `${anchors.home}${text.slice(1)}`;
  else if (text.startsWith('/')) {
    throw new RuleError(`${JSON.stringify(specifier)} starts with a single /, which could mean the workspace or the file system root`, `write //${text.slice(1)} for an absolute path or ./${text.slice(1)} inside the workspace`);
  } else glob = join(anchors.workspace, (text === '.' ? '' : text.replace(/^\.\//, '')) + (text.endsWith('/') ? '**' : ''));
  const matcher = picomatch(glob, { dot: true });
  // The glob's fixed head rules most paths out with one string compare, before the regex.
  const scanned = picomatch.scan(glob).base;
  const base = scanned.includes('\\') ? '' : scanned;
  return { glob, test: (path) => path.startsWith(base) && matcher(path) };
}

/** A glob that matches exactly this path, its glob characters escaped (for rules made from a call). */
export function literalPathGlob(path: string): string {
  return path.replace(/[*?[\]{}()!+@\\]/g, '\\$&');
}

/** A path argument as written and as it really resolves, both absolute. */
export interface ResolvedPath {
  readonly lexical: string;
  readonly real: string;
  /** Workspace-relative (with /) when inside the workspace, for the protected-path check. */
  readonly inWorkspace?: string;
}

/** Resolves a path argument against a folder, following symlinks as far as the path exists. */
export function resolvePath(requested: string, from: string, anchors: PathAnchors): ResolvedPath {
  const expanded = requested === '~' || requested.startsWith('~/') ? join(anchors.home, requested.slice(1)) : requested;
  const lexical = resolve(from, expanded);
  const { real } = realpathOfLongestExisting(lexical);
  const rel = relative(anchors.workspace, real);
  const inside = rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  return { lexical, real, ...(inside ? { inWorkspace: slashed(rel) } : {}) };
}

/** The protected path (`.git`, `.vscode`, …) a resolved path is or lies in, as written or as resolved. */
export function protectedPathOf(path: ResolvedPath, workspace: string): string | undefined {
  for (const candidate of [relative(workspace, path.lexical), path.inWorkspace]) {
    if (candidate === undefined || candidate.startsWith('..') || isAbsolute(candidate)) continue;
    const match = protectedMatch(slashed(candidate));
    if (match) return match.protectedPath;
  }
  return undefined;
}
