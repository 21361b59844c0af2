import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GateError } from '../../shared/errors';
import { confinePath, refuseSymlinkTarget } from '../../main/tools/workspacePath';
import { removeTempFolder } from '../fixtures/tempFolder';
import { makeWorkspaceBeside } from '../fixtures/toolWorkspace';

let root: string;
let workspace: string;
let outside: string;

beforeEach(() => {
  ({ root, workspace, outside } = makeWorkspaceBeside());
  mkdirSync(join(workspace, 'src'));
  writeFileSync(join(workspace, 'src', 'main.ts'), 'export {};\n');
  writeFileSync(join(outside, 'secret.txt'), 'do not read');
});

afterEach(() => removeTempFolder(root));

/** The EPERMISSION a path is refused with. */
function refused(requested: string): GateError {
  try {
    confinePath(workspace, requested);
  } catch (error) {
    if (error instanceof GateError) return error;
    throw error;
  }
  throw new Error(`${requested} was not refused`);
}

describe('confinePath', () => {
  it('judges a dangling symlink by where it points: out of the workspace is refused', () => {
    symlinkSync(join(outside, 'not-yet'), join(workspace, 'later'));
    expect(refused('later').code).toBe('EPERMISSION');
    expect(refused('later/new.txt').message).toContain('outside the workspace');
    symlinkSync(join(outside, 'missing.txt'), join(workspace, 'dangling.txt'));
    expect(refused('dangling.txt').code).toBe('EPERMISSION');
  });

  it('accepts a dangling symlink that points inside the workspace', () => {
    symlinkSync(join(workspace, 'build'), join(workspace, 'out'));
    expect(confinePath(workspace, 'out/app.js')).toEqual({ absolute: join(workspace, 'build', 'app.js'), relative: join('build', 'app.js'), exists: false });
  });

  it('refuses a loop of symlinks instead of spinning', () => {
    symlinkSync(join(workspace, 'b'), join(workspace, 'a'));
    symlinkSync(join(workspace, 'a'), join(workspace, 'b'));
    expect(refused('a/file').message).toContain('symlinks');
  });

  it('resolves existing and missing paths inside the workspace', () => {
    expect(confinePath(workspace, 'src/main.ts')).toEqual({ absolute: join(workspace, 'src', 'main.ts'), relative: join('src', 'main.ts'), exists: true });
    expect(confinePath(workspace, 'new/dir/file.txt')).toEqual({
      absolute: join(workspace, 'new', 'dir', 'file.txt'),
      relative: join('new', 'dir', 'file.txt'),
      exists: false,
    });
    expect(confinePath(workspace, '.').relative).toBe('');
    expect(confinePath(workspace, 'src/../src/./main.ts').relative).toBe(join('src', 'main.ts'));
  });

  it('accepts an absolute path that lies inside the workspace', () => {
    expect(confinePath(workspace, join(workspace, 'src', 'main.ts')).exists).toBe(true);
  });

  it.each(['..', '../outside/secret.txt', 'src/../../outside', 'src/../../../etc/passwd'])('refuses %j, which climbs out', (requested) => {
    const error = refused(requested);
    expect(error.code).toBe('EPERMISSION');
    expect(error.message).toContain('is outside the workspace');
  });

  it('refuses an absolute path elsewhere', () => {
    expect(refused(join(outside, 'secret.txt')).code).toBe('EPERMISSION');
    expect(refused('/etc/passwd').message).toContain('outside the workspace');
  });

  it('refuses a sibling folder whose name starts with the workspace name', () => {
    mkdirSync(`${workspace}-evil`);
    expect(refused(`../${'workspace'}-evil/x`).code).toBe('EPERMISSION');
  });

  it('refuses a symlinked file inside that points outside', () => {
    symlinkSync(join(outside, 'secret.txt'), join(workspace, 'innocent.txt'));
    const error = refused('innocent.txt');
    expect(error.code).toBe('EPERMISSION');
    expect(error.message).toContain('resolves through a symlink');
    expect(error.details).toEqual({ path: 'innocent.txt', resolved: join(outside, 'secret.txt') });
  });

  it('refuses a path under a symlinked directory that points outside, even for a file not there yet', () => {
    symlinkSync(outside, join(workspace, 'linked'), 'dir');
    expect(refused('linked/secret.txt').message).toContain('resolves through a symlink');
    expect(refused('linked/new/file.txt').message).toContain('resolves through a symlink');
  });

  it('follows a symlink that stays inside the workspace', () => {
    symlinkSync(join(workspace, 'src'), join(workspace, 'alias'), 'dir');
    expect(confinePath(workspace, 'alias/main.ts').relative).toBe(join('src', 'main.ts'));
  });

  it('refuses a path holding a NUL byte', () => {
    const error = refused('src/main.ts\0.png');
    expect(error.code).toBe('EPERMISSION');
    expect(error.message).toContain('NUL byte');
  });
});

describe('refuseSymlinkTarget', () => {
  it('refuses a write target that is a symlink, even one pointing inside', () => {
    symlinkSync(join(workspace, 'src', 'main.ts'), join(workspace, 'link.ts'));
    expect(() => refuseSymlinkTarget(workspace, 'link.ts')).toThrow(/is a symlink; writes never follow symlinks/);
  });

  it('lets a regular file or a missing path through', () => {
    expect(() => refuseSymlinkTarget(workspace, 'src/main.ts')).not.toThrow();
    expect(() => refuseSymlinkTarget(workspace, 'src/new.ts')).not.toThrow();
  });
});
