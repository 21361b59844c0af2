import { closeSync, readSync } from 'node:fs';
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { DEFAULT_BOUNDS } from '../../shared/manifest';
import { defineTool } from '../registry/defineTool';
import { openRegularFile } from './regularFile';
import { confinePath } from './workspacePath';

/** The largest file read whole; a bigger one must be read by line range. */
export const MAX_WHOLE_FILE_BYTES = 10 * 1024 * 1024;
/** The most text one call returns, whole file or line range. */
const MAX_CONTENT_BYTES = MAX_WHOLE_FILE_BYTES;
const CHUNK_BYTES = 64 * 1024;

/** Reads a UTF-8 text file inside the workspace, whole or by a 1-based inclusive line range. */
export const readFileTool = defineTool({
  name: 'read_file',
  version: '1.1.0',
  description:
    'Reads a UTF-8 text file inside the workspace and returns its content. Paths are relative to the workspace root. ' +
    'Pass startLine/endLine (1-based, inclusive) to read part of a file; files over 10 MiB can only be read that way. ' +
    'Binary files are refused. Output longer than 16 KiB reaches you cut, so read long files a range of lines at a time.',
  tier: 'STANDARD',
  sideEffects: ['FsRead'],
  determinism: 'Deterministic',
  capabilities: ['fs:read'],
  // The default output cap stays: a long file is paged through by line range, not returned whole.
  bounds: { timeoutMs: 30_000, maxMemoryMb: 256, maxOutputBytes: DEFAULT_BOUNDS.maxOutputBytes },
  pathArguments: ['path'],
  input: z
    .object({
      path: z.string().min(1).describe('File path, relative to the workspace root'),
      startLine: z.number().int().min(1).optional().describe('First line to return, 1-based (default 1)'),
      endLine: z.number().int().min(1).optional().describe('Last line to return, inclusive (default: the last line)'),
    })
    .strict(),
  output: z.object({
    path: z.string().describe('Workspace-relative path read'),
    content: z.string().describe('The text of the lines returned, line endings included'),
    bytes: z.number().int().describe('Size of the whole file in bytes'),
    startLine: z.number().int().describe('First line returned (1-based)'),
    endLine: z.number().int().describe('Last line returned; startLine − 1 when no line was returned (an empty file)'),
    totalLines: z.number().int().describe('Lines in the whole file (a final line ending does not start another)'),
  }),
  execute: (input, context) => {
    const target = confinePath(context.workspace, input.path);
    if (!target.exists) throw new GateError('ERUNTIME', `${input.path} does not exist in the workspace`);
    const ranged = input.startLine !== undefined || input.endLine !== undefined;
    const first = input.startLine ?? 1;
    const last = input.endLine ?? Number.MAX_SAFE_INTEGER;
    if (last < first) throw new GateError('EVALIDATION', `endLine ${last} is before startLine ${first}; ask for at least one line`);

    // A symlink, FIFO, socket or device is refused by its kind, never followed, opened or waited on.
    const { fd, stats } = openRegularFile(target.absolute, input.path, 'use list_dir for directories');
    try {
      if (!ranged && stats.size > MAX_WHOLE_FILE_BYTES) {
        throw new GateError(
          'EQUOTA',
          `${input.path} is ${stats.size} bytes, more than read_file returns at once (${MAX_WHOLE_FILE_BYTES}); pass startLine and endLine to read part of it`,
          { bytes: stats.size, maxBytes: MAX_WHOLE_FILE_BYTES },
        );
      }
      const scan = scanLines(fd, first, last, input.path, stats.size);
      if (first > Math.max(scan.totalLines, 1)) {
        throw new GateError('EVALIDATION', `startLine ${first} is past the end of ${input.path}, which has ${scan.totalLines} lines`, {
          totalLines: scan.totalLines,
        });
      }
      let content: string;
      try {
        content = new TextDecoder('utf-8', { fatal: true }).decode(scan.selected);
      } catch {
        throw binaryFile(input.path, stats.size, 'not valid UTF-8');
      }
      const endLine = Math.max(Math.min(last, scan.totalLines), first - 1);
      return { path: target.relative, content, bytes: stats.size, startLine: first, endLine, totalLines: scan.totalLines };
    } finally {
      closeSync(fd);
    }
  },
});

/**
 * Reads the file in chunks: keeps the bytes of lines first..last, counts every line, and refuses
 * the file as binary at the first NUL byte. Lines split at 0x0A, which never occurs inside a UTF-8
 * sequence, so the kept bytes decode on their own.
 */
function scanLines(fd: number, first: number, last: number, path: string, size: number): { selected: Buffer; totalLines: number } {
  const chunk = Buffer.alloc(CHUNK_BYTES);
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let line = 1;
  let position = 0;
  let lastByte = -1;
  for (;;) {
    const read = readSync(fd, chunk, 0, CHUNK_BYTES, position);
    if (read === 0) break;
    const view = chunk.subarray(0, read);
    if (view.includes(0)) throw binaryFile(path, size, 'it holds NUL bytes');
    let from = 0;
    while (from < read) {
      const newline = view.indexOf(0x0a, from);
      const end = newline === -1 ? read : newline + 1;
      if (line >= first && line <= last) {
        keptBytes += end - from;
        if (keptBytes > MAX_CONTENT_BYTES) {
          throw new GateError(
            'EQUOTA',
            `lines ${first}–${last} of ${path} are more than read_file returns at once (${MAX_CONTENT_BYTES} bytes); ask for fewer lines`,
          );
        }
        kept.push(Buffer.from(view.subarray(from, end)));
      }
      if (newline !== -1) line++;
      from = end;
    }
    lastByte = view[read - 1]!;
    position += read;
  }
  const totalLines = position === 0 ? 0 : lastByte === 0x0a ? line - 1 : line;
  return { selected: Buffer.concat(kept), totalLines };
}

function binaryFile(path: string, size: number, why: string): GateError {
  return new GateError('EVALIDATION', `${path} is a binary file (${size} bytes, ${why}); read_file returns text only`, {
    bytes: size,
  });
}
