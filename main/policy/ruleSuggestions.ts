import { dirname, relative } from 'node:path';
import type { ToolManifest } from '../../shared/manifest';
import type { RuleSuggestion } from '../../shared/permissions';
import { callParts, type CallFacts } from './callParts';
import { hostTarget } from './hostRule';
import { literalPathGlob, type PathAnchors, type ResolvedPath } from './pathRule';
import { literalShellRule } from './shellRule';
import { programWords } from '../tools/shell/programWords';
import { expandBraces } from '../tools/shell/shellWords';
import { isInside } from '../tools/workspacePath';

/**
 * The rules that would allow one call, for a prompt's rule editor: the narrowest first (the exact
 * command, the file, the host), then broader ones a person may pick (the program and its
 * sub-command as a prefix, the file's folder). A call with several parts (sub-commands,
 * redirections, paths) needs a rule for each, so each suggestion holds one rule per line.
 */
export function suggestRules(manifest: ToolManifest, input: unknown, facts: CallFacts, anchors: PathAnchors): RuleSuggestion[] {
  const parts = callParts(manifest, input, facts, anchors);
  if (parts.unreadable !== undefined) return [];
  const narrow: string[] = [];
  const broad: string[] = [];
  let broader = false;
  for (const command of parts.commands ?? []) {
    const words = programWords(command.argv).argv;
    narrow.push(`${manifest.name}(${literalShellRule(command.argv.join(' '))})`);
    const subcommand = words.slice(1).find((word) => !word.startsWith('-'));
    // The written words as bash splits them by braces, so they line up with `words` (`rm -rf {a,b}` is four).
    const written = command.argv.flatMap((word) => expandBraces(word));
    const head = [...written.slice(0, written.length - words.length + 1), ...(subcommand ? [subcommand] : [])];
    const prefix = `${manifest.name}(${literalShellRule(head.join(' '))} *)`;
    broader ||= prefix !== narrow.at(-1);
    broad.push(prefix);
  }
  for (const redirect of parts.redirects) {
    if (!redirect.resolved) return [];
    const tool = redirect.access === 'write' ? 'write_file' : 'read_file';
    narrow.push(`${tool}(${pathSpecifier(redirect.resolved, anchors)})`);
    broad.push(`${tool}(${folderSpecifier(redirect.resolved, anchors)})`);
    broader = true;
  }
  for (const path of parts.paths) {
    narrow.push(`${manifest.name}(${pathSpecifier(path, anchors)})`);
    broad.push(`${manifest.name}(${folderSpecifier(path, anchors)})`);
    broader = true;
  }
  for (const url of parts.urls) {
    const target = hostTarget(url);
    if (!target) return [];
    const rule = `${manifest.name}(domain:${target.host}${target.port === target.defaultPort ? '' : `:${target.port}`})`;
    narrow.push(rule);
    broad.push(rule);
  }
  const every = { rule: manifest.name, covers: `every call of ${manifest.name}` };
  if (parts.arguments) {
    const exact = exactArguments(parts.arguments);
    const names = Object.keys(parts.arguments).join(', ');
    // A rule names the arguments it matches and lets any others through: the suggestion says so.
    return exact ? [{ rule: `${manifest.name}(${exact})`, covers: `calls with these values of ${names}, whatever other arguments they add` }, every] : [every];
  }
  if (narrow.length === 0) return [every];
  const unique = (rules: string[]) => [...new Set(rules)].join('\n');
  const suggestions: RuleSuggestion[] = [{ rule: unique(narrow), covers: describeNarrow(parts.commands !== undefined, parts.paths.length + parts.redirects.length > 0) }];
  if (broader && unique(broad) !== suggestions[0]!.rule) suggestions.push({ rule: unique(broad), covers: parts.commands ? 'these programs and sub-commands, with any arguments' : 'anything in the same folder' });
  return suggestions;
}

function describeNarrow(shell: boolean, paths: boolean): string {
  if (shell) return paths ? 'this exact command and the files it redirects to' : 'this exact command';
  return paths ? 'this exact file' : 'this host';
}

/** A path as a rule names it: workspace-relative (`./` when it could read as `~`), else `//absolute`. */
function pathSpecifier(path: ResolvedPath, anchors: PathAnchors): string {
  const inside = relative(anchors.workspace, path.real);
  if (inside === '') return '.';
  // A name that only begins with two dots (`..cache`) is inside, as the path rules read it.
  if (isInside(anchors.workspace, path.real)) return literalPathGlob(inside.startsWith('~') ? `./${inside}` : inside);
  return `/${literalPathGlob(path.real)}`;
}

/** The folder a path lies in, as a rule naming everything under it. */
function folderSpecifier(path: ResolvedPath, anchors: PathAnchors): string {
  const folder = dirname(path.real);
  const inside = relative(anchors.workspace, folder);
  if (inside === '') return '**';
  if (isInside(anchors.workspace, folder)) return `${literalPathGlob(inside.startsWith('~') ? `./${inside}` : inside)}/**`;
  return `/${literalPathGlob(folder)}/**`;
}

/**
 * An upstream call's arguments as `name="value"` pairs matching exactly; undefined when a rule
 * cannot pin them all (an object or list argument, too many, too long), so no suggestion allows
 * more than the call shown.
 */
function exactArguments(args: Readonly<Record<string, unknown>>): string | undefined {
  const pairs = Object.entries(args);
  if (pairs.length === 0 || pairs.length > 5 || pairs.some(([, value]) => !['string', 'number', 'boolean'].includes(typeof value))) return undefined;
  const written = pairs.map(([name, value]) => [name, String(value)] as const);
  if (written.some(([name, value]) => !/^[A-Za-z0-9_-]+$/.test(name) || value.length > 200)) return undefined;
  // Glob characters in a value are escaped: the rule matches the value as it is, nothing more.
  return written.map(([name, value]) => `${name}=${JSON.stringify(value.replace(/[\\*?[\]{}()!+@|^$]/g, (char) => `\\${char}`))}`).join(', ');
}
