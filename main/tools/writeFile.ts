import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import type { Preview } from '../../shared/approval';
import { GateError } from '../../shared/errors';
import { defineTool } from '../registry/defineTool';
import { unifiedDiff } from './unifiedDiff';
import { confinePath, refuseSymlinkTarget, type ConfinedPath } from './workspacePath';

const MAX_CONTENT_CHARS = 5 * 1024 * 1024;

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
    const before = readExisting(target, input.path);
    if (context.dryRun) {
      const unified = unifiedDiff(target.relative, before ?? '', input.content);
      return { kind: 'diff', path: target.relative, before: before ?? '', after: input.content, unified, exists: before !== undefined };
    }
    mkdirSync(dirname(target.absolute), { recursive: true });
    const bytesWritten = writeAtomically(target.absolute, input.content);
    return { path: target.relative, bytesWritten, created: before === undefined };
  },
});

function readExisting(target: ConfinedPath, requested: string): string | undefined {
  if (!target.exists) return undefined;
  if (!statSync(target.absolute).isFile()) {
    throw new GateError('EVALIDATION', `${requested} exists and is not a file; write_file only writes files`);
  }
  return readFileSync(target.absolute, 'utf8');
}

/** Writes to a temp file beside the target, flushes, then renames over it: never a half-written file. */
function writeAtomically(path: string, content: string): number {
  const temp = join(dirname(path), `.${basename(path)}.toolgate-${randomBytes(6).toString('hex')}.tmp`);
  const bytes = Buffer.from(content, 'utf8');
  const fd = openSync(temp, 'wx', 0o644);
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return bytes.length;
}
