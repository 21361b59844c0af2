import { closeSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { defineTool } from '../registry/defineTool';
import { Redactor } from '../secrets/redactor';
import { compileGlob } from './gitignore';
import { fileKind, notRegularFile, openRegularFile, type OpenedRegularFile } from './regularFile';
import { confinePath } from './workspacePath';
import { slashPath, walkWorkspace } from './workspaceWalk';

/** Files bigger than this are passed over. */
const MAX_FILE_BYTES = 10 * 1024 * 1024;
/**
 * Lines longer than this are not scanned: a regex's backtracking grows with the line it runs on,
 * so capping the line caps the damage of a polynomial pattern. (Exponential ones are refused up
 * front when they nest quantifiers, and the call's deadline kills whatever slips through.)
 */
export const MAX_LINE_CHARS = 10_000;
/** The text returned for one matching line is cut to this many characters around the match. */
const MAX_TEXT_CHARS = 400;
const MAX_RESULTS = 1000;
const MAX_FILES = 50_000;
const MAX_DEPTH = 64;

const MatchSchema = z.object({
  path: z.string().describe('Workspace-relative path of the file, with /'),
  line: z.number().int().describe('1-based line number'),
  column: z.number().int().describe('1-based column of the first match on the line, in UTF-16 code units'),
  text: z.string().describe(`The line (cut to ${MAX_TEXT_CHARS} characters around the match when longer)`),
});

/** Searches the text files of the workspace for a literal string or a regular expression. */
export const searchFilesTool = defineTool({
  name: 'search_files',
  version: '1.0.0',
  description:
    'Searches the text files under a workspace folder for a string (or a JavaScript regular expression with regex: true) ' +
    'and returns one match per matching line: path, line, column and the line text. Files matched by .gitignore, .git, ' +
    'symlinks, binary files, files over 10 MiB and lines over 10,000 characters are skipped. include/exclude take globs: ' +
    'without a / they match a file name at any depth (*.ts), with one the path below the searched folder (src/**). ' +
    'Files are searched as Toolgate shows them: a stored secret (in any form it knows) reads as $ENV.NAME.',
  // It returns the text of matching lines: file contents, as read_file does, so the same tier.
  tier: 'STANDARD',
  sideEffects: ['FsRead'],
  determinism: 'Deterministic',
  capabilities: ['fs:read'],
  bounds: { timeoutMs: 30_000, maxMemoryMb: 256, maxOutputBytes: 128 * 1024 },
  pathArguments: ['path'],
  input: z
    .object({
      query: z.string().min(1).max(1000).describe('Text to find (or a regular expression when regex is true)'),
      regex: z.boolean().default(false).describe('Read query as a JavaScript regular expression (default: literal text)'),
      ignoreCase: z.boolean().default(false).describe('Match regardless of case'),
      path: z.string().default('.').describe('Folder (or single file) to search, relative to the workspace root'),
      include: z.array(z.string().min(1).max(500)).max(50).optional().describe('Only files matching one of these globs'),
      exclude: z.array(z.string().min(1).max(500)).max(50).optional().describe('Skip files and folders matching any of these globs'),
      maxResults: z.number().int().min(1).max(MAX_RESULTS).default(100).describe(`Matches to return at most (max ${MAX_RESULTS})`),
    })
    .strict(),
  output: z.object({
    matches: z.array(MatchSchema).describe('Matching lines, file by file (shallower folders first), in line order'),
    truncated: z.boolean().describe('Whether the search stopped at maxResults (or at the file limit) before the end'),
    filesSearched: z.number().int().describe('Text files scanned'),
    filesSkipped: z.number().int().describe('Files passed over: binary, too large or unreadable'),
  }),
  execute: (input, context) => {
    const pattern = compileQuery(input.query, input.regex, input.ignoreCase);
    // Matched against the redacted text, never the file's own: otherwise a pattern's match or miss
    // (how many, which files, an error) tests a guess at a secret, one character at a time.
    const redactor = new Redactor(context.hiddenSecrets ?? []);
    const include = (input.include ?? []).map((glob) => compileGlobNamed(glob, 'include'));
    const exclude = (input.exclude ?? []).map((glob) => compileGlobNamed(glob, 'exclude'));
    const target = confinePath(context.workspace, input.path);
    if (!target.exists) throw new GateError('ERUNTIME', `${input.path} does not exist in the workspace`);
    const root = slashPath(target.relative);
    const below = (path: string): string => (root === '' ? path : path.slice(root.length + 1));

    const result = { matches: [] as Array<z.infer<typeof MatchSchema>>, truncated: false, filesSearched: 0, filesSkipped: 0 };
    const kind = fileKind(statSync(target.absolute));
    if (kind !== 'file' && kind !== 'directory') throw notRegularFile(input.path, kind, 'search_files searches folders and regular files');
    const files: string[] = kind === 'file' ? [root] : [];
    const walk =
      files.length > 0
        ? []
        : walkWorkspace(context.workspace, root, {
            maxDepth: MAX_DEPTH,
            descendInto: (entry) => !exclude.some((glob) => glob.test(below(entry.path))),
          });
    for (const entry of walk) {
      if (entry.type !== 'file') continue;
      const relative = below(entry.path);
      if (include.length > 0 && !include.some((glob) => glob.test(relative))) continue;
      if (exclude.some((glob) => glob.test(relative))) continue;
      files.push(entry.path);
      if (files.length > MAX_FILES) break;
    }
    if (files.length > MAX_FILES) {
      files.length = MAX_FILES;
      result.truncated = true;
    }
    for (const path of files) {
      const text = readTextFile(join(context.workspace, path));
      if (text === undefined) {
        result.filesSkipped++;
        continue;
      }
      result.filesSearched++;
      if (!searchText(path, redactor.redactText(text), pattern, input.maxResults, result.matches)) {
        result.truncated = true;
        break;
      }
    }
    return result;
  },
});

/** The query as a RegExp: escaped when literal; a bad or nested-quantifier regex is EVALIDATION naming it. */
export function compileQuery(query: string, regex: boolean, ignoreCase: boolean): RegExp {
  const flags = ignoreCase ? 'i' : '';
  if (!regex) return new RegExp(query.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), flags);
  let compiled: RegExp;
  try {
    compiled = new RegExp(query, flags);
  } catch (error) {
    throw new GateError('EVALIDATION', `query ${JSON.stringify(query)} is not a valid regular expression: ${(error as Error).message}`, {
      field: 'query',
    });
  }
  if (nestsQuantifiers(query)) {
    throw new GateError(
      'EVALIDATION',
      `query ${JSON.stringify(query)} repeats a group that itself repeats (like (a+)+), which can take exponential time; simplify it`,
      { field: 'query' },
    );
  }
  return compiled;
}

/**
 * Whether a regex source puts a quantifier on a group that holds one: the shape behind most
 * catastrophic backtracking, such as (a+)+ or (\w*x?)*. A heuristic, not a proof of safety.
 */
export function nestsQuantifiers(source: string): boolean {
  const groups: boolean[] = [];
  let inClass = false;
  for (let index = 0; index < source.length; index++) {
    const char = source[index]!;
    if (char === '\\') {
      index++;
    } else if (inClass) {
      if (char === ']') inClass = false;
    } else if (char === '[') {
      inClass = true;
    } else if (char === '(') {
      groups.push(false);
    } else if (char === ')') {
      const heldQuantifier = groups.pop() ?? false;
      const repeated = isUnboundedQuantifier(source, index + 1);
      if (heldQuantifier && repeated) return true;
      if (groups.length > 0 && (heldQuantifier || repeated)) groups[groups.length - 1] = true;
    } else if (isUnboundedQuantifier(source, index) && groups.length > 0) {
      groups[groups.length - 1] = true;
    }
  }
  return false;
}

/** Whether a *, + or {n,} (repeats without a small bound) starts at `index`. */
function isUnboundedQuantifier(source: string, index: number): boolean {
  const char = source[index];
  if (char === '*' || char === '+') return true;
  return char === '{' && /^\{\d+,\d*\}/.test(source.slice(index, index + 24));
}

function compileGlobNamed(glob: string, field: 'include' | 'exclude'): RegExp {
  try {
    return compileGlob(glob);
  } catch (error) {
    throw new GateError('EVALIDATION', `${field} glob ${JSON.stringify(glob)} is not valid: ${(error as Error).message}`, { field });
  }
}

/** A file's text, or undefined when it is too large, binary (a NUL in its first 8 KiB, or not UTF-8), unreadable or no regular file. */
function readTextFile(absolute: string): string | undefined {
  let opened: OpenedRegularFile;
  try {
    opened = openRegularFile(absolute, absolute);
  } catch {
    return undefined;
  }
  const { fd, stats } = opened;
  try {
    if (stats.size > MAX_FILE_BYTES) return undefined;
    const bytes = Buffer.alloc(stats.size);
    let filled = 0;
    while (filled < bytes.length) {
      const read = readSync(fd, bytes, filled, bytes.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    const content = bytes.subarray(0, filled);
    if (content.subarray(0, 8192).includes(0)) return undefined;
    return new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Appends one match per matching line; false when maxResults was reached with more left to see. */
function searchText(path: string, text: string, pattern: RegExp, maxResults: number, matches: Array<z.infer<typeof MatchSchema>>): boolean {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.endsWith('\r') ? lines[index]!.slice(0, -1) : lines[index]!;
    if (line.length > MAX_LINE_CHARS) continue;
    const found = pattern.exec(line);
    if (found === null) continue;
    if (matches.length === maxResults) return false;
    matches.push({ path, line: index + 1, column: found.index + 1, text: excerpt(line, found.index) });
  }
  return true;
}

/** The line, or a window of it around the match when it is long. */
function excerpt(line: string, at: number): string {
  if (line.length <= MAX_TEXT_CHARS) return line;
  const start = Math.max(0, Math.min(at - 100, line.length - MAX_TEXT_CHARS));
  return `${start > 0 ? '…' : ''}${line.slice(start, start + MAX_TEXT_CHARS)}${start + MAX_TEXT_CHARS < line.length ? '…' : ''}`;
}
