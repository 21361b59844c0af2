import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadFastBlake3 } from '../../main/audit/fastBlake3';
import { EffectsRecorder, MAX_RECORDED_EFFECTS } from '../../main/executor/steps/recordEffects';
import { ImageStore } from '../../main/undo/imageStore';

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
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('recording effects', () => {
  it('keeps the before-image of a file a shell command rewrites, and the after-image for a redo', () => {
    writeFileSync(join(workspace, 'a.txt'), 'before\n');
    const watch = recorder.begin('shell_exec', { command: 'echo after > a.txt' })!;
    writeFileSync(join(workspace, 'a.txt'), 'after\n');
    const [effect] = watch.end().effects;
    expect(recorder.store.read(effect!.beforeImage!.image!)!.toString()).toBe('before\n');
    expect(recorder.store.read(effect!.afterImage!.image!)!.toString()).toBe('after\n');
  });

  it(`keeps at most ${MAX_RECORDED_EFFECTS} changes of one call and counts the rest`, () => {
    const watch = recorder.begin('shell_exec', { command: 'npm install' })!;
    mkdirSync(join(workspace, 'many'));
    for (let index = 0; index < MAX_RECORDED_EFFECTS + 1; index++) writeFileSync(join(workspace, 'many', `${index}.js`), '');
    const recorded = watch.end();
    expect(recorded.effects).toHaveLength(MAX_RECORDED_EFFECTS);
    expect(recorded.omitted).toBe(2);
  });

  it('records nothing for a tool whose effects it does not know', () => {
    expect(recorder.begin('http_fetch', { url: 'https://example.com' })).toBeUndefined();
    expect(recorder.begin('write_file', { path: '../outside.txt' })).toBeUndefined();
  });
});
