/**
 * A watched file (servers.json, a policy file, the reviews file): created, edited, renamed over or
 * removed, the gate hears of it once per change, including a file created the moment after the
 * watch began, which fs.watchFile missed when its first look came after it.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileSignature, watchFileChanges } from '../../main/state/fileChanges';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

let folder: string;
let stop: (() => void) | undefined;
beforeEach(() => {
  folder = makeTempFolder();
});
afterEach(() => {
  stop?.();
  removeTempFolder(folder);
});

const tick = () => new Promise((resolve) => setTimeout(resolve, 80));

describe('watchFileChanges', () => {
  it('hears of a file created at once after the watch began', async () => {
    const file = join(folder, 'servers.json');
    let changes = 0;
    stop = watchFileChanges(file, 20, () => changes++);
    writeFileSync(file, '{}');
    await tick();
    expect(changes).toBe(1);
  });

  it('hears of an edit, a rename over the file and its removal once each, and of nothing while it is left alone', async () => {
    const file = join(folder, 'policy.json');
    writeFileSync(file, '{}');
    let changes = 0;
    stop = watchFileChanges(file, 20, () => changes++);
    await tick();
    expect(changes).toBe(0);
    writeFileSync(file, '{ "deny": [] }');
    await tick();
    writeFileSync(join(folder, 'next.json'), '{ "allow": [] }');
    renameSync(join(folder, 'next.json'), file);
    await tick();
    rmSync(file);
    await tick();
    expect(changes).toBe(3);
  });

  it('takes the baseline it is given: a change made after the caller read the file, before the watch began, is heard', async () => {
    const file = join(folder, 'servers.json');
    const read = fileSignature(file);
    writeFileSync(file, '{}');
    let changes = 0;
    stop = watchFileChanges(file, 20, () => changes++, read);
    await tick();
    expect(changes).toBe(1);
  });

  it('files watched at the same interval are each heard, and one watch stopped leaves the others watched', async () => {
    const files = ['a.json', 'b.json', 'c.json'].map((name) => join(folder, name));
    const changes = [0, 0, 0];
    const stops = files.map((file, index) => watchFileChanges(file, 20, () => changes[index]!++));
    stop = () => stops.forEach((each) => each());
    files.forEach((file) => writeFileSync(file, '{}'));
    await tick();
    expect(changes).toEqual([1, 1, 1]);
    stops[1]!();
    files.forEach((file) => writeFileSync(file, '{ "deny": [] }'));
    await tick();
    expect(changes).toEqual([2, 1, 2]);
  });
});

