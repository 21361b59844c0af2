import { z } from 'zod';
import type { Preview } from '../../shared/approval';
import { defineTool } from '../registry/defineTool';
import { unifiedDiff } from './unifiedDiff';
import { replaceFileAtomically } from './stagedFile';
import { confinePath, readFileNoFollow, refuseSymlinkTarget, type ConfinedPath } from './workspacePath';

const MAX_CONTENT_CHARS = 5 * 1024 * 1024;
/** The largest existing file write_file replaces (its old text is shown in the preview). */
const MAX_EXISTING_BYTES = 64 * 1024 * 1024;

/** Creates or replaces a text file inside the workspace, atomically; its dry run returns the diff. */
export const writeFileTool = defineTool({
  name: 'write_file',
  version: '1.0.0',
  description:
    'Creates or overwrites a UTF-8 text file inside the workspace (parent directories are created). ' +
    'A person approves the change after seeing its diff.',
  tier: 'ELEVATED',
  sideEffects: ['FsRead', 'FsWrite'],
  determinism: 'Deterministic',
  capabilities: ['fs:read', 'fs:write'],
  pathArguments: ['path'],
  supportsDryRun: true,
  input: z
    .object({
      path: z.string().min(1).describe('File path, relative to the workspace root'),
      content: z.string().max(MAX_CONTENT_CHARS).describe('The complete new content of the file'),
    })
    .strict(),
  output: z.object({
    path: z.string().describe('Workspace-relative path written'),
    bytesWritten: z.number().int().describe('Bytes written'),
    created: z.boolean().describe('Whether the file is new'),
  }),
  execute: (input, context): Preview | { path: string; bytesWritten: number; created: boolean } => {
    const target = confinePath(context.workspace, input.path);
    refuseSymlinkTarget(context.workspace, input.path);
    const existing = readExisting(context.workspace, target, input.path);
    const before = existing?.text ?? '';
    if (context.dryRun) {
      const unified = unifiedDiff(target.relative, before, input.content);
      return { kind: 'diff', path: target.relative, before, after: input.content, unified, exists: existing !== undefined };
    }
    const bytesWritten = replaceFileAtomically(context.workspace, target.absolute, input.content, {
      createParents: true,
      ...(existing ? { mode: existing.mode } : {}),
    });
    return { path: target.relative, bytesWritten, created: existing === undefined };
  },
});

/** The existing file's text and permission bits, read without following a symlink; undefined when there is none. */
function readExisting(workspace: string, target: ConfinedPath, requested: string): { text: string; mode: number } | undefined {
  if (!target.exists) return undefined;
  // A FIFO, socket or device there is refused by its kind: the person would be shown no diff of it.
  const opened = readFileNoFollow(workspace, target.absolute, requested, MAX_EXISTING_BYTES);
  return { text: opened.bytes.toString('utf8'), mode: opened.mode };
}
