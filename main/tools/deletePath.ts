import { randomBytes } from 'node:crypto';
import { lstatSync, renameSync, rmSync, unlinkSync, type Stats } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import type { Preview } from '../../shared/approval';
import { GateError } from '../../shared/errors';
import { defineTool } from '../registry/defineTool';
import { entryType, surveyDelete } from './deleteSurvey';
import { assertSameDirectory, confinePath, directoryIdentity, refuseUnnamablePath, type DirectoryIdentity } from './workspacePath';

const DeleteOutputSchema = z.object({
  path: z.string().describe('Workspace-relative path deleted'),
  type: z.enum(['file', 'directory', 'symlink', 'other']).describe('What it was (a symlink is removed itself, never followed)'),
  deletedEntries: z.number().int().describe('Entries deleted, the path itself included'),
  deletedBytes: z.number().int().describe('Bytes of the files deleted'),
});
type DeleteOutput = z.infer<typeof DeleteOutputSchema>;

/**
 * Deletes a file, a symlink (the link itself) or, with `recursive: true`, a directory and all it
 * holds. A recursive call is judged a tier higher (RESTRICTED), declared as an escalation. A
 * directory is first renamed aside in one step, so it is either all there or all gone from the
 * workspace's view, then removed. The dry run lists what would go and binds its content (see
 * surveyDelete): the approval holds only while every file is what the person was shown.
 */
export const deletePathTool = defineTool({
  name: 'delete_path',
  version: '1.0.0',
  description:
    'Deletes a file or symlink inside the workspace; a directory only with recursive: true (which deletes everything in it ' +
    'and asks at a higher tier). Symlinks are removed themselves, never followed. A person approves after seeing what would go.',
  tier: 'ELEVATED',
  sideEffects: ['FsWrite'],
  determinism: 'Deterministic',
  capabilities: ['fs:write'],
  pathArguments: ['path'],
  supportsDryRun: true,
  escalations: [
    { argument: 'recursive', equals: true, tier: 'RESTRICTED', reason: 'a recursive delete removes a whole directory tree' },
  ],
  input: z
    .object({
      path: z.string().min(1).describe('Path to delete, relative to the workspace root'),
      recursive: z.boolean().default(false).describe('Required to delete a directory: deletes it and everything in it'),
    })
    .strict(),
  output: DeleteOutputSchema,
  execute: (input, context): Preview | DeleteOutput => {
    const target = locate(context.workspace, input.path);
    const type = entryType(target.stats);
    if (type === 'directory' && !input.recursive) {
      throw new GateError('EVALIDATION', `${input.path} is a directory; pass recursive: true to delete it and everything in it`);
    }
    // Only the dry run binds content: it is what the person is shown, and what is re-taken and compared before this runs.
    const surveyed = surveyDelete(context.workspace, target.absolute, target.stats, input.path, context.dryRun);
    if (context.dryRun) return { kind: 'delete', path: target.relative, ...surveyed };
    if (type === 'directory') removeTree(context.workspace, target);
    else {
      assertSameDirectory(context.workspace, target.parent);
      unlinkSync(target.absolute);
    }
    return { path: target.relative, type, deletedEntries: surveyed.totalEntries, deletedBytes: surveyed.totalBytes };
  },
});

/** What a delete is about, found without following a symlink at the last step. */
interface DeleteTarget {
  absolute: string;
  relative: string;
  stats: Stats;
  parent: DirectoryIdentity;
}

/** Confines the parent (symlinks on the way are resolved and must stay inside) and names the entry itself, unresolved. */
function locate(workspace: string, requested: string): DeleteTarget {
  refuseUnnamablePath(requested, 'path');
  const lexical = resolve(workspace, requested);
  if (lexical === workspace) throw new GateError('EPERMISSION', 'the workspace root itself cannot be deleted; delete what is in it');
  // A path that climbs out has a parent outside (resolve() leaves no `..`), which confinePath refuses.
  const parent = confinePath(workspace, dirname(lexical));
  const absolute = join(parent.absolute, basename(lexical));
  let stats: Stats;
  try {
    stats = lstatSync(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new GateError('EVALIDATION', `${requested} does not exist in the workspace`);
    throw error;
  }
  return { absolute, relative: relative(workspace, absolute), stats, parent: directoryIdentity(parent.absolute) };
}

/**
 * Renames the directory aside within its parent (one atomic step: the tree leaves the workspace's
 * view whole), then removes it; rm never follows the symlinks inside. A failure before the rename
 * changes nothing; one after it names what is left.
 */
function removeTree(workspace: string, target: DeleteTarget): void {
  const aside = join(target.parent.path, `.${basename(target.absolute)}.toolgate-${randomBytes(6).toString('hex')}.deleting`);
  assertSameDirectory(workspace, target.parent);
  renameSync(target.absolute, aside);
  try {
    rmSync(aside, { recursive: true });
  } catch (error) {
    throw new GateError(
      'ERUNTIME',
      `${target.relative} is gone from its place, but removing it failed part-way (${(error as Error).message}); what is left is in ${relative(workspace, aside)}`,
    );
  }
}
