import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { ToolManifestSchema } from '../../shared/manifest';
import { callTier, tierPolicy } from '../../main/policy/tierPolicy';
import { defineTool } from '../../main/registry/defineTool';
import { deletePathTool } from '../../main/tools/deletePath';
import { MAX_BOUND_ENTRIES, MAX_HASHED_BYTES, MAX_LISTED_ENTRIES } from '../../main/tools/deleteSurvey';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { runTool } from '../fixtures/toolWorkspace';
import { gateErrorOf } from '../fixtures/gateErrors';

let root: string;
let workspace: string;
let outside: string;

beforeEach(() => {
  root = makeTempFolder();
  workspace = join(root, 'workspace');
  outside = join(root, 'outside');
  mkdirSync(join(workspace, 'build', 'assets'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(workspace, 'notes.txt'), 'hello');
  writeFileSync(join(workspace, 'build', 'app.js'), '12345');
  writeFileSync(join(workspace, 'build', 'assets', 'logo.svg'), '<svg/>');
  writeFileSync(join(outside, 'keep.txt'), 'keep');
});

afterEach(() => removeTempFolder(root));

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function run(input: unknown, dryRun = false): Promise<any> {
  return runTool(deletePathTool, input, workspace, dryRun);
}

async function failure(input: unknown, dryRun = false): Promise<GateError> {
  return gateErrorOf(() => run(input, dryRun));
}

describe('delete_path', () => {
  it('declares ELEVATED, FsWrite, a dry run, its path argument and the recursive escalation', () => {
    expect(deletePathTool.manifest).toMatchObject({
      name: 'delete_path',
      tier: 'ELEVATED',
      sideEffects: ['FsWrite'],
      supportsDryRun: true,
      pathArguments: ['path'],
      escalations: [{ argument: 'recursive', equals: true, tier: 'RESTRICTED' }],
    });
  });

  it('deletes a file; its dry run shows it and deletes nothing', async () => {
    expect(await run({ path: 'notes.txt' }, true)).toEqual({
      kind: 'delete',
      path: 'notes.txt',
      entries: [{ path: 'notes.txt', type: 'file', bytes: 5, sha256: sha256('hello') }],
      totalEntries: 1,
      totalBytes: 5,
      contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(existsSync(join(workspace, 'notes.txt'))).toBe(true);
    expect(await run({ path: 'notes.txt' })).toEqual({ path: 'notes.txt', type: 'file', deletedEntries: 1, deletedBytes: 5 });
    expect(existsSync(join(workspace, 'notes.txt'))).toBe(false);
  });

  it('refuses a directory without recursive: true, in the dry run too', async () => {
    for (const dryRun of [true, false]) {
      const error = await failure({ path: 'build' }, dryRun);
      expect(error.code).toBe('EVALIDATION');
      expect(error.message).toContain('recursive: true');
    }
    expect(existsSync(join(workspace, 'build', 'app.js'))).toBe(true);
  });

  it('lists a tree parents first, names sorted, then deletes it whole, leaving nothing aside', async () => {
    const preview = await run({ path: 'build', recursive: true }, true);
    expect(preview).toEqual({
      kind: 'delete',
      path: 'build',
      entries: [
        { path: 'build', type: 'directory', bytes: 0 },
        { path: 'build/app.js', type: 'file', bytes: 5, sha256: sha256('12345') },
        { path: 'build/assets', type: 'directory', bytes: 0 },
        { path: 'build/assets/logo.svg', type: 'file', bytes: 6, sha256: sha256('<svg/>') },
      ],
      totalEntries: 4,
      totalBytes: 11,
      contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(await run({ path: 'build', recursive: true })).toMatchObject({ type: 'directory', deletedEntries: 4, deletedBytes: 11 });
    expect(readdirSync(workspace)).toEqual(['notes.txt']);
  });

  it('lists at most the limit but counts everything', async () => {
    mkdirSync(join(workspace, 'many'));
    for (let index = 0; index < MAX_LISTED_ENTRIES + 5; index++) writeFileSync(join(workspace, 'many', `f${index}`), 'x');
    const preview = await run({ path: 'many', recursive: true }, true);
    expect(preview.entries).toHaveLength(MAX_LISTED_ENTRIES);
    expect(preview.totalEntries).toBe(MAX_LISTED_ENTRIES + 6);
    expect(preview.totalBytes).toBe(MAX_LISTED_ENTRIES + 5);
    // An entry past the listing is bound all the same: a same-size change there changes the content hash.
    const unlisted = join(workspace, 'many', 'f999');
    expect(preview.entries.some((entry: { path: string }) => entry.path === 'many/f999')).toBe(false);
    writeFileSync(unlisted, 'y');
    expect((await run({ path: 'many', recursive: true }, true)).contentHash).not.toBe(preview.contentHash);
  });

  it('binds a same-size change, a changed symlink target and a special file, never opening the FIFO', async () => {
    execFileSync('mkfifo', [join(workspace, 'build', 'pipe')]);
    symlinkSync('app.js', join(workspace, 'build', 'link'));
    const first = await run({ path: 'build', recursive: true }, true);
    expect(first.entries).toContainEqual({ path: 'build/pipe', type: 'other', kind: 'fifo', bytes: 0 });
    expect((await run({ path: 'build', recursive: true }, true)).contentHash).toBe(first.contentHash);

    writeFileSync(join(workspace, 'build', 'app.js'), '54321');
    const edited = await run({ path: 'build', recursive: true }, true);
    expect(edited.totalBytes).toBe(first.totalBytes);
    expect(edited.contentHash).not.toBe(first.contentHash);

    rmSync(join(workspace, 'build', 'link'));
    symlinkSync('assets', join(workspace, 'build', 'link'));
    expect((await run({ path: 'build', recursive: true }, true)).contentHash).not.toBe(edited.contentHash);
  });

  it('past the hashing budget binds a file by inode and change time, and says how many', async () => {
    truncateSync(join(workspace, 'build', 'app.js'), MAX_HASHED_BYTES + 1);
    const preview = await run({ path: 'build', recursive: true }, true);
    expect(preview.unhashedFiles).toBe(1);
    expect(preview.entries).toContainEqual({ path: 'build/app.js', type: 'file', bytes: MAX_HASHED_BYTES + 1 });
    writeFileSync(join(workspace, 'build', 'assets', 'logo.svg'), '<svg/>');
    const touched = await run({ path: 'build', recursive: true }, true);
    expect(touched.contentHash).toBe(preview.contentHash);
    const handle = openSync(join(workspace, 'build', 'app.js'), 'r+');
    writeSync(handle, 'Z', 0);
    closeSync(handle);
    expect((await run({ path: 'build', recursive: true }, true)).contentHash).not.toBe(preview.contentHash);
  });

  it('refuses to show a tree over the entry bound, and deletes nothing', async () => {
    mkdirSync(join(workspace, 'huge'));
    for (let index = 0; index < MAX_BOUND_ENTRIES; index++) writeFileSync(join(workspace, 'huge', `f${index}`), '');
    const error = await failure({ path: 'huge', recursive: true }, true);
    expect(error.code).toBe('EQUOTA');
    expect(error.message).toContain(`huge holds more than ${MAX_BOUND_ENTRIES} entries, too many to show`);
    expect(readdirSync(join(workspace, 'huge'))).toHaveLength(MAX_BOUND_ENTRIES);
  });

  it('removes a symlink itself, never what it points to, also inside a recursive delete', async () => {
    symlinkSync(join(workspace, 'notes.txt'), join(workspace, 'link.txt'));
    symlinkSync(outside, join(workspace, 'build', 'out'), 'dir');
    expect(await run({ path: 'link.txt' }, true)).toMatchObject({ entries: [{ path: 'link.txt', type: 'symlink', bytes: 0 }] });
    await run({ path: 'link.txt' });
    expect(existsSync(join(workspace, 'link.txt'))).toBe(false);
    expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('hello');

    const preview = await run({ path: 'build', recursive: true }, true);
    expect(preview.entries).toContainEqual({ path: 'build/out', type: 'symlink', bytes: 0 });
    await run({ path: 'build', recursive: true });
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep');
  });

  it('refuses .., absolute paths outside, the workspace root and a missing path', async () => {
    expect((await failure({ path: '../outside/keep.txt' })).code).toBe('EPERMISSION');
    expect((await failure({ path: join(outside, 'keep.txt') })).code).toBe('EPERMISSION');
    expect((await failure({ path: '..', recursive: true })).code).toBe('EPERMISSION');
    expect((await failure({ path: '.', recursive: true })).message).toContain('workspace root');
    expect((await failure({ path: 'missing.txt' })).message).toContain('does not exist');
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep');
  });

  it('refuses a path under a planted symlink that leads outside', async () => {
    symlinkSync(outside, join(workspace, 'escape'), 'dir');
    expect((await failure({ path: 'escape/keep.txt' })).code).toBe('EPERMISSION');
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep');
  });
});

describe('tier escalations', () => {
  const manifest = deletePathTool.manifest;

  it('a recursive delete is judged RESTRICTED, and the rule names the argument', () => {
    expect(callTier(manifest, { path: 'build', recursive: true }).tier).toBe('RESTRICTED');
    const decided = tierPolicy.decide(manifest, { path: 'build', recursive: true });
    expect(decided).toMatchObject({ decision: 'ask', rule: 'tier:RESTRICTED(recursive)→ask' });
    expect(decided.reason).toContain('raised to RESTRICTED');
    expect(decided.reason).toContain('whole directory tree');
  });

  it('a plain delete stays at the tool’s tier; only === matches', () => {
    expect(tierPolicy.decide(manifest, { path: 'notes.txt', recursive: false }).rule).toBe('tier:ELEVATED→ask');
    expect(tierPolicy.decide(manifest, { path: 'notes.txt', recursive: 'true' }).rule).toBe('tier:ELEVATED→ask');
    expect(tierPolicy.decide(manifest, 'not an object').rule).toBe('tier:ELEVATED→ask');
  });

  it('the highest matching escalation wins', () => {
    const tool = defineTool({
      name: 'two_way',
      version: '1.0.0',
      description: 'Escalates twice.',
      tier: 'STANDARD',
      escalations: [
        { argument: 'a', equals: true, tier: 'ELEVATED', reason: 'a' },
        { argument: 'b', equals: 'all', tier: 'DANGEROUS', reason: 'b' },
      ],
      input: z.object({ a: z.boolean().optional(), b: z.string().optional() }),
      output: z.object({}),
      execute: () => ({}),
    });
    expect(tierPolicy.decide(tool.manifest, { a: true }).rule).toBe('tier:ELEVATED(a)→ask');
    expect(tierPolicy.decide(tool.manifest, { a: true, b: 'all' })).toMatchObject({ decision: 'deny', rule: 'tier:DANGEROUS(b)→deny' });
    expect(tierPolicy.decide(tool.manifest, {}).rule).toBe('tier:STANDARD→allow');
  });

  it('defineTool refuses an escalation on no input field or one that does not raise the tier; manifests without stay as they were', () => {
    const base = { name: 'bad', version: '1.0.0', description: 'x', tier: 'ELEVATED' as const, input: z.object({ on: z.boolean() }), output: z.object({}), execute: () => ({}) };
    expect(() => defineTool({ ...base, escalations: [{ argument: 'off', equals: true, tier: 'RESTRICTED', reason: 'r' }] })).toThrow(/no input field/);
    expect(() => defineTool({ ...base, escalations: [{ argument: 'on', equals: true, tier: 'STANDARD', reason: 'r' }] })).toThrow(/raise the tier/);
    expect(defineTool(base).manifest).not.toHaveProperty('escalations');
    expect(ToolManifestSchema.safeParse(deletePathTool.manifest).success).toBe(true);
  });
});
