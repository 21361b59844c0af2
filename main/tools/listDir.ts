import { statSync } from 'node:fs';
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { defineTool } from '../registry/defineTool';
import { fileKind, KIND_NAMES } from './regularFile';
import { confinePath } from './workspacePath';
import { slashPath, walkWorkspace, type WalkEntry } from './workspaceWalk';

/** The deepest listing one call may ask for. */
const MAX_DEPTH = 10;
/** The most entries one call may ask for. */
const MAX_ENTRIES = 5000;
const DEFAULT_ENTRIES = 1000;

const EntrySchema = z.object({
  name: z.string().describe('Entry name (its last path segment)'),
  path: z.string().describe('Workspace-relative path of the entry, with /'),
  type: z.enum(['file', 'directory', 'symlink', 'other']).describe('What the entry is; symlinks are not followed'),
  kind: z
    .enum(['fifo', 'socket', 'character-device', 'block-device', 'unknown'])
    .optional()
    .describe('For type other: which special file it is (listed, never opened)'),
});

/** Lists a directory inside the workspace, optionally several levels deep, hiding what .gitignore hides. */
export const listDirTool = defineTool({
  name: 'list_dir',
  version: '1.1.0',
  description:
    'Lists the entries of a directory inside the workspace (names, paths and types), `depth` levels deep (default 1). ' +
    'Entries matched by .gitignore files, and .git itself, are left out; symlinks are shown, not followed. ' +
    'Paths are relative to the workspace root.',
  tier: 'SAFE',
  sideEffects: ['FsRead'],
  determinism: 'Deterministic',
  capabilities: ['fs:read'],
  bounds: { timeoutMs: 30_000, maxMemoryMb: 256, maxOutputBytes: 128 * 1024 },
  pathArguments: ['path'],
  input: z
    .object({
      path: z.string().default('.').describe('Directory, relative to the workspace root'),
      depth: z.number().int().min(1).max(MAX_DEPTH).default(1).describe(`Levels to list: 1 is the directory's own entries (max ${MAX_DEPTH})`),
      maxEntries: z.number().int().min(1).max(MAX_ENTRIES).default(DEFAULT_ENTRIES).describe(`Entries to return at most (max ${MAX_ENTRIES})`),
    })
    .strict(),
  output: z.object({
    path: z.string().describe('Workspace-relative directory listed'),
    entries: z.array(EntrySchema).describe('Its entries, in path order (a folder before what it holds)'),
    truncated: z.boolean().describe('Whether entries were left out because of maxEntries; shallower ones are kept first'),
  }),
  execute: (input, context) => {
    const target = confinePath(context.workspace, input.path);
    if (!target.exists) throw new GateError('ERUNTIME', `${input.path} does not exist in the workspace`);
    const kind = fileKind(statSync(target.absolute));
    if (kind !== 'directory') {
      const what = kind === 'file' ? 'a file; use read_file for files' : `${KIND_NAMES[kind]}, which file tools list but never open`;
      throw new GateError('EVALIDATION', `${input.path} is not a directory but ${what}`, { path: input.path, kind });
    }
    const collected: WalkEntry[] = [];
    let truncated = false;
    // Breadth first: when the cap cuts the walk, what is left out is the deepest.
    for (const entry of walkWorkspace(context.workspace, slashPath(target.relative), { maxDepth: input.depth })) {
      if (collected.length === input.maxEntries) {
        truncated = true;
        break;
      }
      collected.push(entry);
    }
    const entries = collected
      .sort((a, b) => comparePaths(a.path, b.path))
      .map((entry) => ({ name: entry.name, path: entry.path, type: entry.type, ...(entry.kind ? { kind: entry.kind } : {}) }));
    return { path: target.relative || '.', entries, truncated };
  },
});

/** Orders paths segment by segment, so a folder's contents follow it directly. */
function comparePaths(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    if (left[index] !== right[index]) return left[index]! < right[index]! ? -1 : 1;
  }
  return left.length - right.length;
}
