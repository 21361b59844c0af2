import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GateError } from '../../shared/errors';
import type { DefinedTool } from '../../main/registry/defineTool';
import { listDirTool } from '../../main/tools/listDir';
import { readFileTool } from '../../main/tools/readFile';
import { writeFileTool } from '../../main/tools/writeFile';
import { removeTempFolder } from '../fixtures/tempFolder';
import { makeWorkspaceBeside, runTool } from '../fixtures/toolWorkspace';
import { gateErrorOf } from '../fixtures/gateErrors';

let root: string;
let workspace: string;
let outside: string;

beforeEach(() => {
  ({ root, workspace, outside } = makeWorkspaceBeside());
  writeFileSync(join(workspace, 'notes.txt'), 'one\ntwo\n');
});

afterEach(() => removeTempFolder(root));

/** Runs a tool's code in-process, after its input schema, as the tool process would. */
async function run(tool: DefinedTool, input: unknown, dryRun = false): Promise<any> {
  return runTool(tool, input, workspace, dryRun);
}

async function failure(tool: DefinedTool, input: unknown, dryRun = false): Promise<GateError> {
  return gateErrorOf(() => run(tool, input, dryRun));
}

describe('write_file', () => {
  it('dry run returns a unified diff of the change and leaves the disk untouched', async () => {
    const preview = await run(writeFileTool, { path: 'notes.txt', content: 'one\nTWO\n' }, true);
    expect(preview).toMatchObject({ kind: 'diff', path: 'notes.txt', before: 'one\ntwo\n', after: 'one\nTWO\n', exists: true });
    expect(preview.unified).toContain('--- a/notes.txt');
    expect(preview.unified).toContain('+++ b/notes.txt');
    expect(preview.unified).toMatch(/^-two$/m);
    expect(preview.unified).toMatch(/^\+TWO$/m);
    expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('dry run of a new file shows everything added and creates nothing', async () => {
    const preview = await run(writeFileTool, { path: 'deep/new.txt', content: 'fresh\n' }, true);
    expect(preview).toMatchObject({ kind: 'diff', exists: false, before: '' });
    expect(preview.unified).toMatch(/^\+fresh$/m);
    expect(existsSync(join(workspace, 'deep'))).toBe(false);
  });

  it('writes the file, creating parent directories, and leaves no temp file behind', async () => {
    const result = await run(writeFileTool, { path: 'a/b/c.txt', content: 'héllo' });
    expect(result).toEqual({ path: join('a', 'b', 'c.txt'), bytesWritten: Buffer.byteLength('héllo'), created: true });
    expect(readFileSync(join(workspace, 'a', 'b', 'c.txt'), 'utf8')).toBe('héllo');
    expect(readdirSync(join(workspace, 'a', 'b'))).toEqual(['c.txt']);
  });

  it('replaces an existing file whole and says it was not created', async () => {
    const result = await run(writeFileTool, { path: 'notes.txt', content: 'replaced' });
    expect(result.created).toBe(false);
    expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('replaced');
    expect(readdirSync(workspace)).toEqual(['notes.txt']);
  });

  it('refuses a symlink as the write target and leaves what it points to alone', async () => {
    writeFileSync(join(workspace, 'real.txt'), 'original');
    symlinkSync(join(workspace, 'real.txt'), join(workspace, 'link.txt'));
    const error = await failure(writeFileTool, { path: 'link.txt', content: 'overwritten' });
    expect(error.code).toBe('EPERMISSION');
    expect(readFileSync(join(workspace, 'real.txt'), 'utf8')).toBe('original');
  });

  it('refuses to write through a symlinked directory that leads outside', async () => {
    symlinkSync(outside, join(workspace, 'escape'), 'dir');
    const error = await failure(writeFileTool, { path: 'escape/planted.txt', content: 'x' });
    expect(error.code).toBe('EPERMISSION');
    expect(readdirSync(outside)).toEqual([]);
  });

  it('refuses .. and absolute paths outside, writing nothing', async () => {
    expect((await failure(writeFileTool, { path: '../outside/x.txt', content: 'x' })).code).toBe('EPERMISSION');
    expect((await failure(writeFileTool, { path: join(outside, 'y.txt'), content: 'x' })).code).toBe('EPERMISSION');
    expect(readdirSync(outside)).toEqual([]);
  });

  it('refuses to replace a directory with a file', async () => {
    mkdirSync(join(workspace, 'dir'));
    expect((await failure(writeFileTool, { path: 'dir', content: 'x' })).code).toBe('EVALIDATION');
  });
});

describe('read_file', () => {
  it('reads a text file with its size', async () => {
    expect(await run(readFileTool, { path: 'notes.txt' })).toEqual({
      path: 'notes.txt',
      content: 'one\ntwo\n',
      bytes: 8,
      startLine: 1,
      endLine: 2,
      totalLines: 2,
    });
  });

  it('refuses a binary file (NUL bytes)', async () => {
    writeFileSync(join(workspace, 'image.bin'), Buffer.from([0x89, 0x50, 0x00, 0x47]));
    const error = await failure(readFileTool, { path: 'image.bin' });
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toContain('is a binary file (4 bytes');
  });

  it('refuses bytes that are not valid UTF-8 instead of mangling them', async () => {
    writeFileSync(join(workspace, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const error = await failure(readFileTool, { path: 'latin1.txt' });
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toContain('not valid UTF-8');
  });

  it('refuses a symlink pointing outside, a missing file and a directory', async () => {
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(join(outside, 'secret.txt'), join(workspace, 'secret.txt'));
    expect((await failure(readFileTool, { path: 'secret.txt' })).code).toBe('EPERMISSION');
    expect((await failure(readFileTool, { path: 'missing.txt' })).message).toContain('does not exist');
    mkdirSync(join(workspace, 'folder'));
    expect((await failure(readFileTool, { path: 'folder' })).message).toContain('is a directory, not a regular file; use list_dir');
  });

  it('refuses a path with a NUL byte', async () => {
    expect((await failure(readFileTool, { path: 'notes.txt\0' })).code).toBe('EPERMISSION');
  });
});

describe('list_dir', () => {
  it('lists entries sorted by name with their types, the root by default', async () => {
    mkdirSync(join(workspace, 'b-dir'));
    symlinkSync(join(workspace, 'notes.txt'), join(workspace, 'a-link'));
    expect(await run(listDirTool, {})).toEqual({
      path: '.',
      entries: [
        { name: 'a-link', path: 'a-link', type: 'symlink' },
        { name: 'b-dir', path: 'b-dir', type: 'directory' },
        { name: 'notes.txt', path: 'notes.txt', type: 'file' },
      ],
      truncated: false,
    });
  });

  it('refuses to list outside the workspace', async () => {
    expect((await failure(listDirTool, { path: '..' })).code).toBe('EPERMISSION');
  });
});
