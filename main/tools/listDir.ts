import { readdirSync } from 'node:fs';
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { defineTool } from '../registry/defineTool';
import { confinePath } from './workspacePath';

const MAX_ENTRIES = 5000;

const EntrySchema = z.object({
  name: z.string().describe('Entry name'),
  type: z.enum(['file', 'directory', 'symlink', 'other']).describe('What the entry is'),
});

/** Lists one directory inside the workspace. */
export const listDirTool = defineTool({
  name: 'list_dir',
  version: '1.0.0',
  description: 'Lists the entries of a directory inside the workspace (names and types, sorted). Paths are relative to the workspace root.',
  tier: 'SAFE',
  sideEffects: ['FsRead'],
  determinism: 'Deterministic',
  capabilities: ['fs:read'],
  pathArguments: ['path'],
  input: z.object({ path: z.string().default('.').describe('Directory, relative to the workspace root') }).strict(),
  output: z.object({
    path: z.string().describe('Workspace-relative directory listed'),
    entries: z.array(EntrySchema).describe('Its entries, sorted by name'),
    truncated: z.boolean().describe(`Whether the listing stopped at ${MAX_ENTRIES} entries`),
  }),
  execute: (input, context) => {
    const target = confinePath(context.workspace, input.path);
    if (!target.exists) throw new GateError('ERUNTIME', `${input.path} does not exist in the workspace`);
    const dirents = readdirSync(target.absolute, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    const entries = dirents.slice(0, MAX_ENTRIES).map((entry) => ({
      name: entry.name,
      type: entry.isSymbolicLink() ? 'symlink' : entry.isDirectory() ? 'directory' : entry.isFile() ? 'file' : 'other',
    }));
    return { path: target.relative || '.', entries, truncated: dirents.length > MAX_ENTRIES };
  },
});
