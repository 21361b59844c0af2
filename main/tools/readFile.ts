import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { defineTool } from '../registry/defineTool';
import { confinePath } from './workspacePath';

const MAX_BYTES = 1024 * 1024;

/** Reads a UTF-8 text file inside the workspace. */
export const readFileTool = defineTool({
  name: 'read_file',
  version: '1.0.0',
  description: 'Reads a UTF-8 text file inside the workspace and returns its content. Paths are relative to the workspace root.',
  tier: 'STANDARD',
  sideEffects: ['FsRead'],
  determinism: 'Deterministic',
  capabilities: ['fs:read'],
  pathArguments: ['path'],
  input: z.object({ path: z.string().min(1).describe('File path, relative to the workspace root') }).strict(),
  output: z.object({
    path: z.string().describe('Workspace-relative path read'),
    content: z.string().describe('The file content'),
    bytes: z.number().int().describe('Size of the file in bytes'),
  }),
  execute: (input, context) => {
    const target = confinePath(context.workspace, input.path);
    if (!target.exists) throw new GateError('ERUNTIME', `${input.path} does not exist in the workspace`);
    const stats = statSync(target.absolute);
    if (!stats.isFile()) throw new GateError('EVALIDATION', `${input.path} is not a file; use list_dir for directories`);
    if (stats.size > MAX_BYTES) {
      throw new GateError('EQUOTA', `${input.path} is ${stats.size} bytes; read_file reads at most ${MAX_BYTES}`);
    }
    const bytes = readFileSync(target.absolute);
    if (bytes.includes(0)) throw new GateError('EVALIDATION', `${input.path} looks binary (it holds NUL bytes); read_file reads text only`);
    let content: string;
    try {
      content = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new GateError('EVALIDATION', `${input.path} is not valid UTF-8 text; read_file reads text only`);
    }
    return { path: target.relative, content, bytes: bytes.length };
  },
});
