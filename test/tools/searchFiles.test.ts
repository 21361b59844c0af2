import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GateError } from '../../shared/errors';
import { checkCapabilities } from '../../main/executor/steps/checkCapabilities';
import { StepFailure } from '../../main/executor/steps/stepFailure';
import { DEFAULT_GRANTS } from '../../main/gate/createGate';
import { MAX_LINE_CHARS, nestsQuantifiers, searchFilesTool } from '../../main/tools/searchFiles';
import { removeTempFolder } from '../fixtures/tempFolder';
import { makeWorkspaceBeside, runTool } from '../fixtures/toolWorkspace';
import { gateErrorOf } from '../fixtures/gateErrors';

let root: string;
let workspace: string;
let outside: string;

beforeEach(() => {
  ({ root, workspace, outside } = makeWorkspaceBeside());
  plant({
    '.gitignore': 'node_modules/\n*.min.js\n',
    'src/app.ts': 'const greeting = "hello";\nexport function hello() {\n  return greeting;\n}\n',
    'src/lib/util.ts': 'export const HELLO = 1;\n// say hello twice: hello\n',
    'README.md': '# Hello project\n',
    'node_modules/dep/index.js': 'hello from a dependency\n',
    'dist/app.min.js': 'hello minified\n',
    '.git/config': 'hello from git internals\n',
  });
});

afterEach(() => removeTempFolder(root));

function plant(files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(workspace, path)), { recursive: true });
    writeFileSync(join(workspace, path), content);
  }
}

async function search(input: Record<string, unknown>): Promise<any> {
  return runTool(searchFilesTool, input, workspace);
}

async function failure(input: Record<string, unknown>): Promise<GateError> {
  return gateErrorOf(() => search(input));
}

describe('search_files: finding text', () => {
  it('finds a literal string: one match per line with path, line, column and text', async () => {
    const result = await search({ query: 'hello' });
    expect(result.matches).toEqual([
      { path: 'src/app.ts', line: 1, column: 19, text: 'const greeting = "hello";' },
      { path: 'src/app.ts', line: 2, column: 17, text: 'export function hello() {' },
      { path: 'src/lib/util.ts', line: 2, column: 8, text: '// say hello twice: hello' },
    ]);
    expect(result.truncated).toBe(false);
  });

  it('skips what .gitignore hides and .git itself', async () => {
    const paths = (await search({ query: 'hello', ignoreCase: true })).matches.map((match: { path: string }) => match.path);
    expect(paths).toContain('README.md');
    expect(paths.some((path: string) => path.startsWith('node_modules') || path.startsWith('.git/') || path.endsWith('.min.js'))).toBe(false);
  });

  it('treats the query literally unless regex is true', async () => {
    plant({ 'notes.txt': 'a.b\naxb\n(x)\n' });
    expect((await search({ query: 'a.b' })).matches.map((match: { line: number }) => match.line)).toEqual([1]);
    expect((await search({ query: '(x)' })).matches).toHaveLength(1);
    expect((await search({ query: 'a.b', regex: true, path: 'notes.txt' })).matches.map((match: { line: number }) => match.line)).toEqual([1, 2]);
    expect((await search({ query: '^export\\s+const', regex: true })).matches).toEqual([
      { path: 'src/lib/util.ts', line: 1, column: 1, text: 'export const HELLO = 1;' },
    ]);
  });

  it('include and exclude globs narrow the files', async () => {
    const include = await search({ query: 'hello', ignoreCase: true, include: ['*.md'] });
    expect(include.matches.map((match: { path: string }) => match.path)).toEqual(['README.md']);
    const exclude = await search({ query: 'hello', exclude: ['lib'] });
    expect(exclude.matches.every((match: { path: string }) => match.path === 'src/app.ts')).toBe(true);
    const pathGlob = await search({ query: 'hello', path: 'src', include: ['lib/**'] });
    expect(pathGlob.matches.map((match: { path: string }) => match.path)).toEqual(['src/lib/util.ts']);
  });

  it('searches a folder or a single file named by path', async () => {
    expect((await search({ query: 'hello', path: 'src/lib' })).matches).toHaveLength(1);
    expect((await search({ query: 'greeting', path: 'src/app.ts' })).matches.map((match: { line: number }) => match.line)).toEqual([1, 3]);
    expect((await failure({ query: 'x', path: 'missing' })).message).toContain('does not exist');
  });

  it('caps the matches at maxResults and says so', async () => {
    plant({ 'many.txt': 'hit\n'.repeat(50) });
    const result = await search({ query: 'hit', maxResults: 10 });
    expect(result.matches).toHaveLength(10);
    expect(result.truncated).toBe(true);
    expect(searchFilesTool.input.safeParse({ query: 'x', maxResults: 1001 }).success).toBe(false);
    expect((await search({ query: 'hit', maxResults: 50 })).truncated).toBe(false);
  });

  it('skips binary files (NUL or invalid UTF-8) and counts them', async () => {
    plant({
      'image.bin': Buffer.concat([Buffer.from('hello'), Buffer.from([0, 1, 2])]),
      'latin1.txt': Buffer.from([0x68, 0x65, 0x6c, 0x6c, 0x6f, 0xe9]),
    });
    const result = await search({ query: 'hello' });
    expect(result.matches.map((match: { path: string }) => match.path)).not.toContain('image.bin');
    expect(result.matches.map((match: { path: string }) => match.path)).not.toContain('latin1.txt');
    expect(result.filesSkipped).toBe(2);
  });

  it(`does not scan lines over ${MAX_LINE_CHARS} characters, and cuts long matching lines`, async () => {
    plant({ 'wide.txt': `${'a'.repeat(MAX_LINE_CHARS + 1)}needle\n${'b'.repeat(2000)}needle${'c'.repeat(2000)}\n` });
    const result = await search({ query: 'needle', path: 'wide.txt' });
    expect(result.matches).toHaveLength(1);
    expect(result.matches[0]).toMatchObject({ line: 2, column: 2001 });
    expect(result.matches[0].text.length).toBeLessThanOrEqual(402);
    expect(result.matches[0].text).toContain('needle');
  });
});

describe('search_files: refusals', () => {
  it('a bad regex is EVALIDATION naming it', async () => {
    const error = await failure({ query: 'foo(', regex: true });
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toContain('"foo(" is not a valid regular expression');
  });

  it('a regex nesting quantifiers (catastrophic backtracking) is EVALIDATION', async () => {
    const error = await failure({ query: '(a+)+$', regex: true });
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toContain('exponential');
    expect(nestsQuantifiers('(\\w*x?)*y')).toBe(true);
    expect(nestsQuantifiers('((ab)+c)*')).toBe(true);
    expect(nestsQuantifiers('(a{2,})+')).toBe(true);
    expect(nestsQuantifiers('(ab|cd)+\\d+')).toBe(false);
    expect(nestsQuantifiers('[(a+)]+')).toBe(false);
    expect(nestsQuantifiers('\\(a+\\)+')).toBe(false);
    expect(nestsQuantifiers('(a{2})+')).toBe(false);
  });

  it('.., absolute paths and a symlink planted inside that points out are EPERMISSION', async () => {
    writeFileSync(join(outside, 'secret.txt'), 'hello TOP-SECRET');
    symlinkSync(outside, join(workspace, 'escape'));
    symlinkSync(join(outside, 'secret.txt'), join(workspace, 'secret-link.txt'));
    for (const path of ['..', '../outside', outside, '/etc', 'escape', 'secret-link.txt']) {
      expect((await failure({ query: 'hello', path })).code, path).toBe('EPERMISSION');
    }
  });

  it('the gate refuses the same paths before the tool runs (its manifest names path as a path argument)', () => {
    symlinkSync(outside, join(workspace, 'escape'));
    expect(searchFilesTool.manifest.pathArguments).toEqual(['path']);
    for (const path of ['../outside', outside, 'escape/secret.txt']) {
      const verdict = checkCapabilities(searchFilesTool.manifest, { query: 'x', path }, DEFAULT_GRANTS, workspace);
      expect(verdict, path).toBeInstanceOf(StepFailure);
    }
    expect(checkCapabilities(searchFilesTool.manifest, { query: 'x', path: 'src' }, DEFAULT_GRANTS, workspace)).not.toBeInstanceOf(StepFailure);
  });

  it('a symlink met on the walk is not followed, even when it stays inside', async () => {
    writeFileSync(join(outside, 'secret.txt'), 'hello TOP-SECRET');
    symlinkSync(outside, join(workspace, 'escape'));
    symlinkSync(join(workspace, 'src'), join(workspace, 'src-again'));
    const result = await search({ query: 'hello' });
    expect(JSON.stringify(result)).not.toContain('TOP-SECRET');
    expect(result.matches.some((match: { path: string }) => match.path.startsWith('src-again'))).toBe(false);
  });

  it('declares a STANDARD (it returns file contents, as read_file does), read-only, deterministic manifest', () => {
    expect(searchFilesTool.manifest).toMatchObject({
      name: 'search_files',
      tier: 'STANDARD',
      sideEffects: ['FsRead'],
      determinism: 'Deterministic',
      capabilities: ['fs:read'],
      supportsDryRun: false,
    });
  });
});
