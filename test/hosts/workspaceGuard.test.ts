/**
 * The protected-entry scan and rollback on their own, against real folders: what the sandbox holds
 * before a call and what it undoes after one (the sandboxed runs are in
 * test/integration/sandboxTrust.test.ts).
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { protectedMatch } from '../../main/tools/protectedPaths';
import { protectedWriteGrants, rollBackGuarded, scanGuarded } from '../../main/hosts/workspaceGuard';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

// Counted, not replaced: the scan's work is bounded by listings, matches and stats, not by time.
vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>();
  return { ...real, readdirSync: vi.fn(real.readdirSync), lstatSync: vi.fn(real.lstatSync) };
});
vi.mock('../../main/tools/protectedPaths', async (original) => {
  const real = await original<typeof import('../../main/tools/protectedPaths')>();
  return { ...real, protectedMatch: vi.fn(real.protectedMatch) };
});

let workspace: string;
const ungranted = protectedWriteGrants(['fs:read', 'fs:write']);

beforeEach(() => {
  workspace = makeTempFolder();
});
afterEach(() => removeTempFolder(workspace));

function put(relative: string, content = 'x'): void {
  mkdirSync(dirname(join(workspace, relative)), { recursive: true });
  writeFileSync(join(workspace, relative), content);
}

describe('protected names', () => {
  it('cover what runs on its own, at any depth, and leave look-alikes open', () => {
    for (const [path, guarded] of [
      ['.envrc', '.envrc'],
      ['sub/.github/workflows/ci.yml', 'sub/.github/workflows'],
      ['.github/actions/setup/action.yml', '.github/actions'],
      ['.husky/pre-commit', '.husky'],
      ['.gitmodules', '.gitmodules'],
      ['.npmrc', '.npmrc'],
      ['.yarnrc.yml', '.yarnrc.yml'],
      ['.zshenv', '.zshenv'],
      ['.inputrc', '.inputrc'],
      ['.config/fish/config.fish', '.config/fish'],
      ['.devcontainer/devcontainer.json', '.devcontainer'],
    ]) {
      expect(protectedMatch(path!)?.protectedPath, path).toBe(guarded);
    }
    for (const open of ['.github/ISSUE_TEMPLATE.md', '.gitattributes', 'Makefile', 'node_modules/.bin/tsc', 'docs/workflows/ci.md', '.envrc.example']) {
      expect(protectedMatch(open), open).toBeUndefined();
    }
  });
});

describe('scanGuarded', () => {
  it('holds a .git folder pinned with its code-bearing parts read-only, and other protected entries read-only', () => {
    put('.git/config');
    put('.git/hooks/pre-commit');
    put('.git/objects/ab/cdef');
    put('vendor/lib/.git/HEAD');
    put('.vscode/tasks.json');
    put('src/index.ts');
    const held = Object.fromEntries(scanGuarded(workspace, ungranted).entries.map((entry) => [entry.relative, entry.hold]));
    expect(held).toEqual({
      '.git': 'pinned',
      '.git/config': 'read-only',
      '.git/hooks': 'read-only',
      'vendor/lib/.git': 'pinned',
      '.vscode': 'read-only',
    });
  });

  it('leaves node_modules to the package manager: a package may ship its own .git or .github there', () => {
    put('node_modules/left-pad/.git/config');
    put('node_modules/left-pad/.github/workflows/ci.yml');
    put('.envrc');
    expect(scanGuarded(workspace, ungranted).entries.map((entry) => entry.relative)).toEqual(['.envrc']);
  });

  it('leaves out what a scoped grant covers, and says when the workspace is too large to scan', () => {
    put('.vscode/tasks.json');
    put('.envrc');
    const granted = protectedWriteGrants(['fs:write', 'fs:write:.vscode/**']);
    expect(scanGuarded(workspace, granted).entries.map((entry) => entry.relative)).toEqual(['.envrc']);
    expect(scanGuarded(workspace, ungranted, 1).complete).toBe(false);
  });

  it('scans a workspace of 5,000 files with one listing per folder, matching and statting only protected names', () => {
    for (let folder = 0; folder < 100; folder++) for (let file = 0; file < 50; file++) put(`src/m${folder}/f${file}.ts`);
    put('.git/config');
    vi.mocked(readdirSync).mockClear();
    vi.mocked(lstatSync).mockClear();
    vi.mocked(protectedMatch).mockClear();
    const scan = scanGuarded(workspace, ungranted);
    expect(scan.entries.map((entry) => entry.relative).sort()).toEqual(['.git', '.git/config']);
    // The workspace, src/ and its 100 folders; .git is held whole, not listed. Its time is in `npm run bench`.
    expect(vi.mocked(readdirSync).mock.calls.length).toBeLessThanOrEqual(102);
    expect(vi.mocked(protectedMatch).mock.calls.length).toBeLessThan(10);
    expect(vi.mocked(lstatSync).mock.calls.length).toBeLessThan(10);
  });
});

describe('rollBackGuarded', () => {
  it('removes protected entries created since the scan, whole, and nothing else', () => {
    put('.git/config', 'mine');
    const before = scanGuarded(workspace, ungranted);
    put('.git/hooks/pre-commit', 'evil');
    put('a/b/.git/config', 'evil');
    put('a/b/code.ts', 'kept');
    put('.envrc', 'evil');
    const undone = rollBackGuarded(workspace, before, ungranted);
    expect(undone.map((entry) => [entry.path, entry.change, entry.grant]).sort()).toEqual([
      ['.envrc', 'created', 'fs:write:.envrc'],
      ['.git/hooks', 'created', 'fs:write:.git/**'],
      ['a/b/.git', 'created', 'fs:write:a/b/.git/**'],
    ]);
    expect(existsSync(join(workspace, '.git/hooks'))).toBe(false);
    expect(existsSync(join(workspace, 'a/b/.git'))).toBe(false);
    expect(existsSync(join(workspace, 'a/b/code.ts'))).toBe(true);
    expect(existsSync(join(workspace, '.git/config'))).toBe(true);
  });

  it('puts back a guarded symlink that was replaced or removed', () => {
    put('envrc.real');
    symlinkSync('envrc.real', join(workspace, '.envrc'));
    symlinkSync('settings', join(workspace, '.vscode'));
    const before = scanGuarded(workspace, ungranted);
    rmSync(join(workspace, '.envrc'));
    symlinkSync('/etc/passwd', join(workspace, '.envrc'));
    rmSync(join(workspace, '.vscode'));
    const undone = rollBackGuarded(workspace, before, ungranted);
    expect(undone.map((entry) => `${entry.path}:${entry.change}`).sort()).toEqual(['.envrc:replaced', '.vscode:replaced']);
    expect(readlinkSync(join(workspace, '.envrc'))).toBe('envrc.real');
    expect(lstatSync(join(workspace, '.vscode')).isSymbolicLink()).toBe(true);
  });
});
