import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fastBlake3BytesHex, loadFastBlake3 } from '../../main/audit/fastBlake3';
import { EffectsRecorder, MAX_RECORDED_EFFECTS } from '../../main/executor/steps/recordEffects';
import { ImageStore } from '../../main/undo/imageStore';
import { scanWorkspace } from '../../main/undo/snapshot';

let base: string;
let workspace: string;
let recorder: EffectsRecorder;

beforeAll(() => loadFastBlake3());
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'toolgate-record-'));
  workspace = join(base, 'ws');
  mkdirSync(workspace);
  recorder = new EffectsRecorder(workspace, new ImageStore({ folder: join(base, 'store'), maxBytes: 1024 ** 3, redact: (text) => text }));
});
afterEach(() => {
  recorder.close();
  rmSync(base, { recursive: true, force: true });
});

describe('recording effects', () => {
  it('keeps the before-image of a file a shell command rewrites, and the after-image for a redo', async () => {
    writeFileSync(join(workspace, 'a.txt'), 'before\n');
    const watch = recorder.begin('shell_exec', { command: 'echo after > a.txt' })!;
    writeFileSync(join(workspace, 'a.txt'), 'after\n');
    const [effect] = (await watch.end()).effects;
    expect(recorder.store.read(effect!.beforeImage!.image!)!.toString()).toBe('before\n');
    expect(recorder.store.read(effect!.afterImage!.image!)!.toString()).toBe('after\n');
  });

  it(`keeps at most ${MAX_RECORDED_EFFECTS} changes of one call and counts the rest`, async () => {
    const watch = recorder.begin('shell_exec', { command: 'npm install' })!;
    mkdirSync(join(workspace, 'many'));
    for (let index = 0; index < MAX_RECORDED_EFFECTS + 1; index++) writeFileSync(join(workspace, 'many', `${index}.js`), '');
    const recorded = await watch.end();
    expect(recorded.effects).toHaveLength(MAX_RECORDED_EFFECTS);
    expect(recorded.omitted).toBe(2);
  });

  it('records nothing for a tool whose effects it does not know', () => {
    expect(recorder.begin('http_fetch', { url: 'https://example.com' })).toBeUndefined();
    expect(recorder.begin('write_file', { path: '../outside.txt' })).toBeUndefined();
  });
});

describe('where a file tool\'s effects are looked for', () => {
  it('never reads a file outside the workspace that a symlinked folder the call names leads to', async () => {
    const outside = join(base, 'outside');
    mkdirSync(outside);
    const secret = 'ssh-private-key-material\n';
    writeFileSync(join(outside, 'id_rsa'), secret);
    symlinkSync(outside, join(workspace, 'keys'));
    const watch = recorder.begin('write_file', { path: 'keys/id_rsa', content: 'x' });
    expect((await watch?.end())?.effects ?? []).toEqual([]);
    expect(recorder.store.read(fastBlake3BytesHex(Buffer.from(secret)))).toBeUndefined();
  });

  it('records a write through a symlinked folder inside the workspace at the path the tool really writes', async () => {
    mkdirSync(join(workspace, 'real'));
    symlinkSync(join(workspace, 'real'), join(workspace, 'link'));
    const watch = recorder.begin('write_file', { path: 'link/a.txt', content: 'new\n' })!;
    writeFileSync(join(workspace, 'real', 'a.txt'), 'new\n');
    expect((await watch.end()).effects.map((effect) => [effect.path, effect.kind])).toEqual([['real/a.txt', 'created']]);
  });

  it('hashes a file larger than one read piece by piece, to the same hash as whole', () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 17, 'toolgate ');
    writeFileSync(join(workspace, 'big.bin'), big);
    expect(scanWorkspace(workspace).get('big.bin')?.hash).toBe(fastBlake3BytesHex(big));
  });
});
