import { chmodSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GateError } from '../../shared/errors';
import { editFileTool } from '../../main/tools/editFile';
import { removeTempFolder } from '../fixtures/tempFolder';
import { makeWorkspaceBeside, runTool } from '../fixtures/toolWorkspace';
import { gateErrorOf } from '../fixtures/gateErrors';

let root: string;
let workspace: string;
let outside: string;

const GREEK = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu'];
/** The Greek letters, then filler lines, so changes at both ends make two hunks. */
const ORIGINAL = [...GREEK.slice(0, 6), ...Array.from({ length: 12 }, (_, index) => `line ${index + 1}`), ...GREEK.slice(6), ''].join('\n');

beforeEach(() => {
  ({ root, workspace, outside } = makeWorkspaceBeside());
  writeFileSync(join(workspace, 'greek.txt'), ORIGINAL);
});

afterEach(() => removeTempFolder(root));

async function run(input: unknown, dryRun = false): Promise<any> {
  return runTool(editFileTool, input, workspace, dryRun);
}

async function failure(input: unknown, dryRun = false): Promise<GateError> {
  return gateErrorOf(() => run(input, dryRun));
}

const read = (name = 'greek.txt') => readFileSync(join(workspace, name), 'utf8');
const patchOf = (before: string, after: string) => createTwoFilesPatch('a/greek.txt', 'b/greek.txt', before, after);

describe('edit_file manifest', () => {
  it('is ELEVATED, reads and writes files, has a dry run and confines path', () => {
    expect(editFileTool.manifest).toMatchObject({
      name: 'edit_file',
      tier: 'ELEVATED',
      sideEffects: ['FsRead', 'FsWrite'],
      supportsDryRun: true,
      pathArguments: ['path'],
    });
    expect(editFileTool.manifest.inputSchema.type).toBe('object');
  });

  it('refuses arguments that do not fit the strategy', () => {
    expect(editFileTool.input.safeParse({ path: 'greek.txt', strategy: 'snippet', old: 'beta' }).success).toBe(false);
    expect(editFileTool.input.safeParse({ path: 'greek.txt', strategy: 'apply', old: 'a', new: 'b', patch: 'x' }).success).toBe(false);
    expect(editFileTool.input.safeParse({ path: 'greek.txt', strategy: 'check' }).success).toBe(false);
  });
});

describe('edit_file: snippet', () => {
  it('dry run shows the diff and changes nothing; the call replaces the one occurrence', async () => {
    const preview = await run({ path: 'greek.txt', strategy: 'snippet', old: 'beta\n', new: 'BETA\n' }, true);
    expect(preview).toMatchObject({ kind: 'diff', path: 'greek.txt', before: ORIGINAL, exists: true });
    expect(preview.after).toBe(ORIGINAL.replace('beta', 'BETA'));
    expect(preview.unified).toMatch(/^-beta$/m);
    expect(preview.unified).toMatch(/^\+BETA$/m);
    expect(read()).toBe(ORIGINAL);

    const result = await run({ path: 'greek.txt', strategy: 'snippet', old: 'beta\n', new: 'BETA\n' });
    expect(result).toMatchObject({ path: 'greek.txt', strategy: 'snippet', applied: true, applies: true });
    expect(read()).toBe(ORIGINAL.replace('beta', 'BETA'));
    expect(readdirSync(workspace)).toEqual(['greek.txt']);
  });

  it('takes `new` literally ($& and $1 are not replacement patterns)', async () => {
    await run({ path: 'greek.txt', strategy: 'snippet', old: 'gamma', new: '$&$1$$' });
    expect(read()).toContain('\n$&$1$$\n');
  });

  it('refuses a snippet that matches twice, saying how often and what to do', async () => {
    const error = await failure({ path: 'greek.txt', strategy: 'snippet', old: 'eta', new: 'ETA' });
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toContain('matches 4 times');
    expect(error.message).toContain('include more surrounding lines');
    expect(read()).toBe(ORIGINAL);
  });

  it('refuses a snippet not found, with a hint', async () => {
    const error = await failure({ path: 'greek.txt', strategy: 'snippet', old: 'omega', new: 'x' });
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toContain('not found');
    expect(error.message).toContain('read_file');
    const spaced = await failure({ path: 'greek.txt', strategy: 'snippet', old: 'alpha\n  beta', new: 'x' });
    expect(spaced.message).toContain('spaces and tabs');
    expect(read()).toBe(ORIGINAL);
  });

  it('keeps the file mode when it replaces the file', async () => {
    chmodSync(join(workspace, 'greek.txt'), 0o755);
    await run({ path: 'greek.txt', strategy: 'snippet', old: 'mu', new: 'MU' });
    expect(statSync(join(workspace, 'greek.txt')).mode & 0o777).toBe(0o755);
  });
});

describe('edit_file: unified diff', () => {
  it('applies a patch; dry run shows the diff first', async () => {
    const after = ORIGINAL.replace('gamma', 'GAMMA').replace('kappa', 'KAPPA');
    const patch = patchOf(ORIGINAL, after);
    const preview = await run({ path: 'greek.txt', strategy: 'apply', patch }, true);
    expect(preview).toMatchObject({ kind: 'diff', after, exists: true });
    expect(read()).toBe(ORIGINAL);
    expect(await run({ path: 'greek.txt', strategy: 'apply', patch })).toMatchObject({ applied: true, applies: true });
    expect(read()).toBe(after);
  });

  it('a patch whose second hunk fails changes nothing: the file stays byte-identical and the error names hunk 2', async () => {
    const after = ORIGINAL.replace('beta', 'BETA').replace('lambda', 'LAMBDA');
    const patch = patchOf(ORIGINAL, after).replace(' kappa\n', ' KAPPA-not-there\n');
    expect(patch.match(/^@@/gm)).toHaveLength(2);
    const bytes = readFileSync(join(workspace, 'greek.txt'));
    const error = await failure({ path: 'greek.txt', strategy: 'apply', patch });
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toMatch(/^hunk 2 of 2 \(@@ -\d+,\d+ \+\d+,\d+ @@\) does not apply/);
    expect(readFileSync(join(workspace, 'greek.txt')).equals(bytes)).toBe(true);
    expect(readdirSync(workspace)).toEqual(['greek.txt']);
    // The dry run fails the same way, so nobody is asked to approve it.
    expect((await failure({ path: 'greek.txt', strategy: 'apply', patch }, true)).message).toContain('hunk 2 of 2');
  });

  it('refuses text that is no patch, and a patch of several files', async () => {
    expect((await failure({ path: 'greek.txt', strategy: 'apply', patch: 'just words' })).message).toContain('no hunks');
    const two = patchOf(ORIGINAL, ORIGINAL.replace('mu', 'MU')) + createTwoFilesPatch('a/x', 'b/x', 'x\n', 'y\n');
    expect((await failure({ path: 'greek.txt', strategy: 'apply', patch: two })).message).toContain('one edit_file call per file');
  });

  it('check reports whether a patch applies and never writes', async () => {
    const good = patchOf(ORIGINAL, ORIGINAL.replace('delta', 'DELTA'));
    expect(await run({ path: 'greek.txt', strategy: 'check', patch: good })).toEqual({
      path: 'greek.txt',
      strategy: 'check',
      applied: false,
      applies: true,
    });
    const bad = good.replace(' gamma\n', ' GAMMA\n');
    const result = await run({ path: 'greek.txt', strategy: 'check', patch: bad });
    expect(result).toMatchObject({ applied: false, applies: false, failure: expect.stringContaining('hunk 1 of 1') });
    // Its dry run does not fail on a patch that does not apply: the check itself is what reports it.
    expect(await run({ path: 'greek.txt', strategy: 'check', patch: bad }, true)).toMatchObject({ kind: 'none' });
    expect(read()).toBe(ORIGINAL);
  });
});

describe('edit_file: paths', () => {
  it('refuses .. and absolute paths outside', async () => {
    writeFileSync(join(outside, 'x.txt'), 'x');
    expect((await failure({ path: '../outside/x.txt', strategy: 'snippet', old: 'x', new: 'y' })).code).toBe('EPERMISSION');
    expect((await failure({ path: join(outside, 'x.txt'), strategy: 'snippet', old: 'x', new: 'y' })).code).toBe('EPERMISSION');
    expect(readFileSync(join(outside, 'x.txt'), 'utf8')).toBe('x');
  });

  it('refuses a symlink planted inside, pointing out or in, and leaves its target alone', async () => {
    writeFileSync(join(outside, 'x.txt'), 'x');
    symlinkSync(join(outside, 'x.txt'), join(workspace, 'out-link.txt'));
    symlinkSync(join(workspace, 'greek.txt'), join(workspace, 'in-link.txt'));
    expect((await failure({ path: 'out-link.txt', strategy: 'snippet', old: 'x', new: 'y' })).code).toBe('EPERMISSION');
    expect((await failure({ path: 'in-link.txt', strategy: 'snippet', old: 'mu', new: 'MU' })).code).toBe('EPERMISSION');
    expect(readFileSync(join(outside, 'x.txt'), 'utf8')).toBe('x');
    expect(read()).toBe(ORIGINAL);
  });

  it('refuses a missing file (write_file creates) and a binary one', async () => {
    expect((await failure({ path: 'new.txt', strategy: 'snippet', old: 'a', new: 'b' })).message).toContain('write_file creates');
    writeFileSync(join(workspace, 'blob.bin'), Buffer.from([1, 0, 2]));
    expect((await failure({ path: 'blob.bin', strategy: 'snippet', old: 'a', new: 'b' })).message).toContain('binary');
  });
});
