import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GateError } from '../../shared/errors';
import type { DefinedTool } from '../../main/registry/defineTool';
import { listDirTool } from '../../main/tools/listDir';
import { MAX_WHOLE_FILE_BYTES, readFileTool } from '../../main/tools/readFile';
import { openGate, type Harness } from '../executor/gateHarness';
import { removeTempFolder } from '../fixtures/tempFolder';
import { makeWorkspaceBeside, runTool } from '../fixtures/toolWorkspace';
import { gateErrorOf } from '../fixtures/gateErrors';

let root: string;
let workspace: string;
let outside: string;

beforeEach(() => {
  ({ root, workspace, outside } = makeWorkspaceBeside());
  writeFileSync(join(workspace, 'five.txt'), 'one\ntwo\nthree\nfour\nfive\n');
});

afterEach(() => removeTempFolder(root));

async function run(tool: DefinedTool, input: unknown): Promise<any> {
  return runTool(tool, input, workspace);
}

async function failure(tool: DefinedTool, input: unknown): Promise<GateError> {
  return gateErrorOf(() => run(tool, input));
}

/** Writes files (and their folders) under the workspace. */
function plant(files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(workspace, path)), { recursive: true });
    writeFileSync(join(workspace, path), content);
  }
}

describe('read_file: line ranges', () => {
  it('returns lines startLine..endLine inclusive, with the whole file counted', async () => {
    expect(await run(readFileTool, { path: 'five.txt', startLine: 2, endLine: 3 })).toEqual({
      path: 'five.txt',
      content: 'two\nthree\n',
      bytes: 24,
      startLine: 2,
      endLine: 3,
      totalLines: 5,
    });
  });

  it('an open range runs to the end, and an endLine past the end is clamped', async () => {
    expect(await run(readFileTool, { path: 'five.txt', startLine: 4 })).toMatchObject({ content: 'four\nfive\n', startLine: 4, endLine: 5 });
    expect(await run(readFileTool, { path: 'five.txt', endLine: 1 })).toMatchObject({ content: 'one\n', startLine: 1, endLine: 1 });
    expect(await run(readFileTool, { path: 'five.txt', startLine: 5, endLine: 99 })).toMatchObject({ content: 'five\n', endLine: 5 });
  });

  it('counts a last line without a line ending, keeps CRLF, and reads an empty file', async () => {
    plant({ 'crlf.txt': 'a\r\nb\r\nc', 'empty.txt': '' });
    expect(await run(readFileTool, { path: 'crlf.txt', startLine: 2 })).toMatchObject({ content: 'b\r\nc', totalLines: 3, endLine: 3 });
    expect(await run(readFileTool, { path: 'empty.txt' })).toMatchObject({ content: '', totalLines: 0, startLine: 1, endLine: 0 });
  });

  it('keeps multi-byte characters whole across chunk boundaries', async () => {
    const line = `${'é'.repeat(40_000)}\n`;
    plant({ 'accents.txt': line.repeat(3) });
    const result = await run(readFileTool, { path: 'accents.txt', startLine: 2, endLine: 2 });
    expect(result.content).toBe(line);
    expect(result.totalLines).toBe(3);
  });

  it('refuses an inverted range and a start past the end', async () => {
    expect((await failure(readFileTool, { path: 'five.txt', startLine: 3, endLine: 2 })).message).toContain('before startLine');
    const past = await failure(readFileTool, { path: 'five.txt', startLine: 6 });
    expect(past.code).toBe('EVALIDATION');
    expect(past.message).toContain('past the end of five.txt, which has 5 lines');
  });

  it('refuses line numbers below 1 and fractions at the schema', () => {
    expect(readFileTool.input.safeParse({ path: 'five.txt', startLine: 0 }).success).toBe(false);
    expect(readFileTool.input.safeParse({ path: 'five.txt', endLine: 1.5 }).success).toBe(false);
  });
});

describe('read_file: size cap and binary files', () => {
  it('refuses a file over 10 MiB whole, suggesting a line range, and reads it by range', async () => {
    const line = `${'x'.repeat(1023)}\n`;
    plant({ 'huge.log': line.repeat(MAX_WHOLE_FILE_BYTES / 1024 + 10) });
    const error = await failure(readFileTool, { path: 'huge.log' });
    expect(error.code).toBe('EQUOTA');
    expect(error.message).toContain('pass startLine and endLine');
    const part = await run(readFileTool, { path: 'huge.log', startLine: 10_000, endLine: 10_001 });
    expect(part).toMatchObject({ content: line.repeat(2), totalLines: MAX_WHOLE_FILE_BYTES / 1024 + 10, bytes: MAX_WHOLE_FILE_BYTES + 10 * 1024 });
  });

  it('refuses a NUL byte as binary, naming the size', async () => {
    writeFileSync(join(workspace, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x0d]));
    const error = await failure(readFileTool, { path: 'image.png' });
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toMatch(/^image\.png is a binary file \(6 bytes, .*\); read_file returns text only$/);
  });

  it('refuses invalid UTF-8 as binary, even in the part of the file asked for', async () => {
    writeFileSync(join(workspace, 'latin1.txt'), Buffer.concat([Buffer.from('ok\n'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])]));
    expect((await failure(readFileTool, { path: 'latin1.txt', startLine: 2 })).message).toContain('is a binary file (8 bytes, not valid UTF-8)');
    expect(await run(readFileTool, { path: 'latin1.txt', endLine: 1 })).toMatchObject({ content: 'ok\n' });
  });

  it('refuses a file with a NUL byte past the first chunk', async () => {
    writeFileSync(join(workspace, 'late.bin'), Buffer.concat([Buffer.from('a\n'.repeat(50_000)), Buffer.from([0])]));
    expect((await failure(readFileTool, { path: 'late.bin', endLine: 1 })).message).toContain('is a binary file');
  });

  it('refuses a symlink planted inside that points out, and reads one that stays inside', async () => {
    writeFileSync(join(outside, 'secret.txt'), 'TOP-SECRET');
    symlinkSync(join(outside, 'secret.txt'), join(workspace, 'innocent.txt'));
    symlinkSync(outside, join(workspace, 'docs'));
    expect((await failure(readFileTool, { path: 'innocent.txt' })).code).toBe('EPERMISSION');
    expect((await failure(readFileTool, { path: 'docs/secret.txt' })).code).toBe('EPERMISSION');
    symlinkSync(join(workspace, 'five.txt'), join(workspace, 'alias.txt'));
    expect(await run(readFileTool, { path: 'alias.txt', endLine: 1 })).toMatchObject({ path: 'five.txt', content: 'one\n' });
  });
});

describe('list_dir: depth, .gitignore and caps', () => {
  beforeEach(() => {
    plant({
      '.gitignore': 'node_modules/\n*.log\n/dist\n!keep.log\n',
      'node_modules/pkg/index.js': '',
      'dist/bundle.js': '',
      'debug.log': '',
      'keep.log': '',
      'src/app.ts': '',
      'src/dist/kept.ts': '',
      'src/trace.log': '',
      'src/lib/.gitignore': 'generated/\n',
      'src/lib/util.ts': '',
      'src/lib/generated/api.ts': '',
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.env.example': '',
    });
  });

  it('depth 1 lists the folder itself, hiding ignored entries and .git', async () => {
    const result = await run(listDirTool, {});
    expect(result.entries.map((entry: { path: string }) => entry.path)).toEqual([
      '.env.example',
      '.gitignore',
      'five.txt',
      'keep.log',
      'src',
    ]);
    expect(result.truncated).toBe(false);
  });

  it('deeper listings apply root and nested .gitignore files, folders before their contents', async () => {
    const result = await run(listDirTool, { depth: 3 });
    expect(result.entries).toContainEqual({ name: 'util.ts', path: 'src/lib/util.ts', type: 'file' });
    expect(result.entries.map((entry: { path: string }) => entry.path)).toEqual([
      '.env.example',
      '.gitignore',
      'five.txt',
      'keep.log',
      'src',
      'src/app.ts',
      'src/dist',
      'src/dist/kept.ts',
      'src/lib',
      'src/lib/.gitignore',
      'src/lib/util.ts',
    ]);
  });

  it('listing a subfolder still honours the .gitignore files above it', async () => {
    const result = await run(listDirTool, { path: 'src', depth: 2 });
    expect(result.path).toBe('src');
    expect(result.entries.map((entry: { path: string }) => entry.path)).toEqual([
      'src/app.ts',
      'src/dist',
      'src/dist/kept.ts',
      'src/lib',
      'src/lib/.gitignore',
      'src/lib/util.ts',
    ]);
  });

  it('a folder asked for by name is listed even though it is ignored', async () => {
    const result = await run(listDirTool, { path: 'node_modules', depth: 2 });
    expect(result.entries.map((entry: { path: string }) => entry.path)).toEqual(['node_modules/pkg', 'node_modules/pkg/index.js']);
  });

  it('caps the entries, keeping the shallow ones, and says it did', async () => {
    plant(Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`src/many/f${String(index).padStart(2, '0')}.ts`, ''])));
    const result = await run(listDirTool, { depth: 5, maxEntries: 8 });
    expect(result.truncated).toBe(true);
    expect(result.entries).toHaveLength(8);
    expect(result.entries.map((entry: { path: string }) => entry.path)).toEqual(
      expect.arrayContaining(['.env.example', '.gitignore', 'five.txt', 'keep.log', 'src']),
    );
  });

  it('shows symlinks without following them, even into folders outside', async () => {
    writeFileSync(join(outside, 'secret.txt'), 'x');
    symlinkSync(outside, join(workspace, 'escape'));
    const result = await run(listDirTool, { depth: 3 });
    expect(result.entries).toContainEqual({ name: 'escape', path: 'escape', type: 'symlink' });
    expect(result.entries.some((entry: { path: string }) => entry.path.startsWith('escape/'))).toBe(false);
    expect((await failure(listDirTool, { path: 'escape' })).code).toBe('EPERMISSION');
  });

  it('refuses a file, and depths outside 1..10', async () => {
    expect((await failure(listDirTool, { path: 'five.txt' })).message).toContain('is not a directory');
    expect(listDirTool.input.safeParse({ depth: 0 }).success).toBe(false);
    expect(listDirTool.input.safeParse({ depth: 11 }).success).toBe(false);
  });
});

describe('read_file and list_dir through a real gate', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('.., absolute paths and a planted symlink out are EPERMISSION before the tool runs', async () => {
    harness = await openGate();
    const g = harness.gate;
    const beside = join(dirname(harness.workspace), 'beside');
    mkdirSync(beside);
    writeFileSync(join(beside, 'secret.txt'), 'TOP-SECRET');
    symlinkSync(join(beside, 'secret.txt'), join(harness.workspace, 'planted.txt'));
    symlinkSync(beside, join(harness.workspace, 'planted-dir'));
    const calls = [
      { tool: 'read_file', arguments: { path: '../beside/secret.txt' } },
      { tool: 'read_file', arguments: { path: join(beside, 'secret.txt') } },
      { tool: 'read_file', arguments: { path: '/etc/passwd', startLine: 1, endLine: 1 } },
      { tool: 'read_file', arguments: { path: 'planted.txt' } },
      { tool: 'list_dir', arguments: { path: '..' } },
      { tool: 'list_dir', arguments: { path: beside, depth: 2 } },
      { tool: 'list_dir', arguments: { path: 'planted-dir' } },
    ];
    for (const call of calls) {
      const result = await g.executor.call(call);
      expect(result.error?.code, JSON.stringify(call)).toBe('EPERMISSION');
      expect(JSON.stringify(result)).not.toContain('TOP-SECRET');
    }
  });

  it('a line range and a deep listing work end to end', async () => {
    harness = await openGate();
    const g = harness.gate;
    // Without an OS sandbox read_file is raised to ELEVATED and asks: say yes, this test is about the tools.
    g.events.subscribe('approvalRequested', (request) => g.approvals.decide(request.approvalId, 'approve'));
    writeFileSync(join(harness.workspace, 'notes.txt'), 'a\nb\nc\n');
    writeFileSync(join(harness.workspace, '.gitignore'), 'hidden/\n');
    mkdirSync(join(harness.workspace, 'hidden'));
    mkdirSync(join(harness.workspace, 'sub'));
    writeFileSync(join(harness.workspace, 'sub', 'x.txt'), '');
    const read = await g.executor.call({ tool: 'read_file', arguments: { path: 'notes.txt', startLine: 2, endLine: 2 } });
    expect(read.data).toMatchObject({ content: 'b\n', totalLines: 3 });
    const listed = await g.executor.call({ tool: 'list_dir', arguments: { depth: 2 } });
    expect((listed.data as { entries: Array<{ path: string }> }).entries.map((entry) => entry.path)).toEqual([
      '.gitignore',
      'notes.txt',
      'sub',
      'sub/x.txt',
    ]);
  });
});
