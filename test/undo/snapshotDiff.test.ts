import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, rmdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanPaths, scanWorkspace } from '../../main/undo/snapshot';
import { diffSnapshots } from '../../main/undo/snapshotDiff';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'toolgate-snap-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('workspace snapshots and their diff', () => {
  it('tells created, modified, deleted, renamed, re-moded and file↔folder changes apart, symlinks and empty folders included', () => {
    writeFileSync(join(root, 'edit.txt'), 'one');
    writeFileSync(join(root, 'gone.txt'), 'bye');
    writeFileSync(join(root, 'move.txt'), 'moving');
    writeFileSync(join(root, 'mode.sh'), 'echo');
    writeFileSync(join(root, 'flip'), 'file first');
    mkdirSync(join(root, 'empty'));
    const before = scanWorkspace(root);
    writeFileSync(join(root, 'edit.txt'), 'two');
    unlinkSync(join(root, 'gone.txt'));
    renameSync(join(root, 'move.txt'), join(root, 'moved.txt'));
    chmodSync(join(root, 'mode.sh'), 0o755);
    unlinkSync(join(root, 'flip'));
    mkdirSync(join(root, 'flip'));
    rmdirSync(join(root, 'empty'));
    mkdirSync(join(root, 'new-empty'));
    symlinkSync('edit.txt', join(root, 'link'));
    writeFileSync(join(root, 'bin.dat'), Buffer.from([0, 255, 1, 254]));
    const effects = diffSnapshots(before, scanWorkspace(root, before));
    expect(effects.map(({ path, kind, from }) => [path, kind, from].filter(Boolean).join(' '))).toEqual([
      'bin.dat created',
      'edit.txt modified',
      'empty deleted',
      'flip type-changed',
      'gone.txt deleted',
      'link created',
      'mode.sh mode-changed',
      'moved.txt renamed move.txt',
      'new-empty created',
    ]);
    const mode = effects.find((effect) => effect.path === 'mode.sh')!;
    expect([mode.before!.mode, mode.after!.mode]).toEqual([0o644 & ~process.umask(), 0o755]);
    expect(effects.find((effect) => effect.path === 'link')!.after).toMatchObject({ type: 'symlink', target: 'edit.txt' });
  });

  it('hashes again only files whose stat changed', () => {
    writeFileSync(join(root, 'a.txt'), 'same');
    const first = scanWorkspace(root);
    // A previous scan that claims another hash for an unchanged stat is believed: the file was not read again.
    const claimed = new Map([...first].map(([path, entry]) => [path, { ...entry, hash: 'f'.repeat(64) }]));
    expect(scanWorkspace(root, claimed).get('a.txt')!.hash).toBe('f'.repeat(64));
    writeFileSync(join(root, 'a.txt'), 'changed');
    expect(scanWorkspace(root, claimed).get('a.txt')!.hash).not.toBe('f'.repeat(64));
  });

  it('an exact-path snapshot sees the folders a write creates and what a deleted folder held', () => {
    const before = scanPaths(root, ['deep/er/file.txt']);
    mkdirSync(join(root, 'deep/er'), { recursive: true });
    writeFileSync(join(root, 'deep/er/file.txt'), 'x');
    const effects = diffSnapshots(before, scanPaths(root, ['deep/er/file.txt']));
    expect(effects.map((effect) => `${effect.path} ${effect.kind}`)).toEqual(['deep created', 'deep/er created', 'deep/er/file.txt created']);
  });
});
