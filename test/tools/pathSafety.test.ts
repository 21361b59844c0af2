import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GateError } from '../../shared/errors';
import { checkCapabilities } from '../../main/executor/steps/checkCapabilities';
import { StepFailure } from '../../main/executor/steps/stepFailure';
import { deletePathTool } from '../../main/tools/deletePath';
import { editFileTool } from '../../main/tools/editFile';
import { findProtectedBelow, protectedMatch } from '../../main/tools/protectedPaths';
import { commitStaged, discardStaged, replaceFileAtomically, stageFile } from '../../main/tools/stagedFile';
import { readFileNoFollow } from '../../main/tools/workspacePath';
import { readFileTool } from '../../main/tools/readFile';
import { writeFileTool } from '../../main/tools/writeFile';
import { removeTempFolder } from '../fixtures/tempFolder';
import { makeWorkspaceBeside } from '../fixtures/toolWorkspace';

let root: string;
let workspace: string;
let outside: string;

beforeEach(() => {
  ({ root, workspace, outside } = makeWorkspaceBeside());
  mkdirSync(join(workspace, 'src'));
  writeFileSync(join(workspace, 'src', 'main.ts'), 'original\n');
});

afterEach(() => removeTempFolder(root));

function thrown(action: () => unknown): GateError {
  try {
    action();
  } catch (error) {
    if (error instanceof GateError) return error;
    throw error;
  }
  throw new Error('it did not throw');
}

/** Swaps `dir` for a symlink to `to`, keeping the real folder aside, as an attacker racing the write would. */
function swapForSymlink(dir: string, to: string): void {
  renameSync(dir, `${dir}.aside`);
  symlinkSync(to, dir, 'dir');
}

describe('staging and commit (the transaction boundary)', () => {
  const target = () => join(workspace, 'src', 'main.ts');

  it('a crash between staging and commit leaves the original byte-identical and no temp file', () => {
    const error = new Error('the tool process died here');
    expect(() =>
      replaceFileAtomically(workspace, target(), 'changed\n', {
        hooks: {
          beforeCommit: () => {
            throw error;
          },
        },
      }),
    ).toThrow(error);
    expect(readFileSync(target(), 'utf8')).toBe('original\n');
    expect(readdirSync(join(workspace, 'src'))).toEqual(['main.ts']);
  });

  it('refuses to commit when the parent was swapped for a symlink leading outside', () => {
    const error = thrown(() =>
      replaceFileAtomically(workspace, target(), 'planted\n', { hooks: { beforeCommit: () => swapForSymlink(join(workspace, 'src'), outside) } }),
    );
    expect(error.code).toBe('EPERMISSION');
    expect(error.message).toContain('outside the workspace');
    expect(readdirSync(outside)).toEqual([]);
    expect(readFileSync(join(workspace, 'src.aside', 'main.ts'), 'utf8')).toBe('original\n');
  });

  it('refuses to commit when the parent now resolves elsewhere inside the workspace', () => {
    mkdirSync(join(workspace, 'other'));
    const staged = stageFile(target(), 'moved\n');
    swapForSymlink(join(workspace, 'src'), join(workspace, 'other'));
    const error = thrown(() => commitStaged(workspace, staged));
    expect(error.message).toContain('changed while the call ran');
    discardStaged(staged);
    expect(readdirSync(join(workspace, 'other'))).toEqual([]);
  });

  it('refuses to commit when another directory took the parent’s place', () => {
    const staged = stageFile(target(), 'x\n');
    renameSync(join(workspace, 'src'), join(workspace, 'src.aside'));
    mkdirSync(join(workspace, 'src'));
    expect(thrown(() => commitStaged(workspace, staged)).message).toContain('another directory took its place');
  });

  it('write_file still goes through the same staging: it creates parents and leaves no temp', async () => {
    await writeFileTool.execute(writeFileTool.input.parse({ path: 'new/deep/file.txt', content: 'x' }), { workspace, dryRun: false, callId: 'c' });
    expect(readdirSync(join(workspace, 'new', 'deep'))).toEqual(['file.txt']);
  });
});

describe('readFileNoFollow', () => {
  it('refuses a symlink at the last step even when it points inside', () => {
    symlinkSync(join(workspace, 'src', 'main.ts'), join(workspace, 'link.ts'));
    expect(thrown(() => readFileNoFollow(workspace, join(workspace, 'link.ts'), 'link.ts', 1024)).code).toBe('EPERMISSION');
  });

  it('reads a regular file with its mode', () => {
    expect(readFileNoFollow(workspace, join(workspace, 'src', 'main.ts'), 'src/main.ts', 1024).bytes.toString()).toBe('original\n');
  });
});

describe('.. , absolute paths and planted symlinks, for the mutating tools', () => {
  it.each([
    [editFileTool, { path: '../outside/x', strategy: 'snippet', old: 'a', new: 'b' }],
    [deletePathTool, { path: '../outside' }],
    [deletePathTool, { path: '/etc/passwd' }],
    [writeFileTool, { path: '/tmp/planted.txt', content: 'x' }],
  ] as const)('%# refuses an argument outside the workspace', async (tool, input) => {
    writeFileSync(join(outside, 'x'), 'keep');
    await expect(Promise.resolve().then(() => tool.execute(tool.input.parse(input), { workspace, dryRun: false, callId: 'c' }))).rejects.toMatchObject({
      code: 'EPERMISSION',
    });
    expect(readFileSync(join(outside, 'x'), 'utf8')).toBe('keep');
  });

  it('the gate refuses a path through a planted symlink leading out before any tool runs', () => {
    symlinkSync(outside, join(workspace, 'escape'), 'dir');
    const refused = checkCapabilities(editFileTool.manifest, { path: 'escape/x.txt' }, ['fs:read', 'fs:write'], workspace);
    expect(refused).toBeInstanceOf(StepFailure);
    expect((refused as StepFailure).error.code).toBe('EPERMISSION');
  });
});

describe('protected paths', () => {
  it('match .git anywhere, the state folder, agent and editor config, case-insensitively', () => {
    expect(protectedMatch('.git/hooks/pre-commit')).toMatchObject({ protectedPath: '.git', grant: 'fs:write:.git/**' });
    expect(protectedMatch('vendor/lib/.git/config')).toMatchObject({ protectedPath: 'vendor/lib/.git', grant: 'fs:write:vendor/lib/.git/**' });
    expect(protectedMatch('.mcp.json')).toMatchObject({ grant: 'fs:write:.mcp.json' });
    expect(protectedMatch('.claude/settings.json')?.rule.name).toBe('.claude');
    expect(protectedMatch('.VSCode/tasks.json')?.rule.name).toBe('.vscode');
    expect(protectedMatch('.toolgate/audit.db')?.rule.name).toBe('.toolgate');
    for (const [path, rule] of [
      ['.cursor/mcp.json', '.cursor'],
      ['.gemini/settings.json', '.gemini'],
      ['.zed/tasks.json', '.zed'],
      ['.hg/hgrc', '.hg'],
      ['.cargo/config.toml', '.cargo/config.toml'],
      ['.mise.toml', '.mise.toml'],
    ]) expect(protectedMatch(path!)?.rule.name, path).toBe(rule);
    expect(protectedMatch('src/git.ts')).toBeUndefined();
    expect(protectedMatch('docs/.mcp.json.example')).toBeUndefined();
  });

  it('are found below a folder without following symlinks', () => {
    mkdirSync(join(workspace, 'vendor', 'lib', '.git'), { recursive: true });
    symlinkSync(join(workspace, 'vendor'), join(workspace, 'src', 'loop'), 'dir');
    const search = findProtectedBelow(workspace, '');
    expect(search.complete).toBe(true);
    expect(search.found.map((match) => match.protectedPath)).toEqual(['vendor/lib/.git']);
    expect(findProtectedBelow(workspace, '', 1).complete).toBe(false);
  });

  const DEFAULTS = ['fs:read', 'fs:write'];

  it('are refused to mutating tools under the plain fs:write, naming the rule and the grant that allows it', () => {
    mkdirSync(join(workspace, '.vscode'));
    const refused = checkCapabilities(writeFileTool.manifest, { path: '.vscode/tasks.json', content: 'x' }, DEFAULTS, workspace);
    expect(refused).toBeInstanceOf(StepFailure);
    const { error } = refused as StepFailure;
    expect(error.code).toBe('EPERMISSION');
    expect(error.message).toContain('rule protected:.vscode');
    expect(error.message).toContain('--grant fs:write:.vscode/**');
    expect(error.details).toMatchObject({ rule: 'protected:.vscode', grant: 'fs:write:.vscode/**' });
    for (const [manifest, input] of [
      [editFileTool.manifest, { path: '.git/config' }],
      [deletePathTool.manifest, { path: '.mcp.json' }],
      [deletePathTool.manifest, { path: '.claude' }],
    ] as const) {
      expect(checkCapabilities(manifest, input, DEFAULTS, workspace)).toBeInstanceOf(StepFailure);
    }
  });

  it('are allowed with an explicit scoped grant covering them, and only those', () => {
    const grants = [...DEFAULTS, 'fs:write:.vscode/**'];
    expect(checkCapabilities(writeFileTool.manifest, { path: '.vscode/tasks.json' }, grants, workspace)).not.toBeInstanceOf(StepFailure);
    expect(checkCapabilities(writeFileTool.manifest, { path: '.vscode' }, grants, workspace)).not.toBeInstanceOf(StepFailure);
    expect(checkCapabilities(writeFileTool.manifest, { path: '.git/config' }, grants, workspace)).toBeInstanceOf(StepFailure);
    expect(checkCapabilities(writeFileTool.manifest, { path: '.mcp.json' }, [...DEFAULTS, 'fs:write:.mcp.json'], workspace)).not.toBeInstanceOf(
      StepFailure,
    );
  });

  it('reached through a symlink count as well', () => {
    mkdirSync(join(workspace, '.git'));
    symlinkSync(join(workspace, '.git'), join(workspace, 'innocent'), 'dir');
    const refused = checkCapabilities(editFileTool.manifest, { path: 'innocent/config' }, DEFAULTS, workspace);
    expect((refused as StepFailure).error.message).toContain('rule protected:.git');
  });

  it('held by a folder a mutating tool would delete are refused too', () => {
    mkdirSync(join(workspace, 'vendor', 'lib', '.git'), { recursive: true });
    const refused = checkCapabilities(deletePathTool.manifest, { path: 'vendor', recursive: true }, DEFAULTS, workspace);
    expect((refused as StepFailure).error.message).toContain('may not change vendor/lib/.git');
    expect(checkCapabilities(deletePathTool.manifest, { path: 'vendor', recursive: true }, [...DEFAULTS, 'fs:write:vendor/lib/.git/**'], workspace)).not.toBeInstanceOf(
      StepFailure,
    );
  });

  it('do not concern tools that only read', () => {
    mkdirSync(join(workspace, '.git'));
    writeFileSync(join(workspace, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    expect(checkCapabilities(readFileTool.manifest, { path: '.git/HEAD' }, DEFAULTS, workspace)).not.toBeInstanceOf(StepFailure);
    expect(existsSync(join(workspace, '.git', 'HEAD'))).toBe(true);
  });
});
