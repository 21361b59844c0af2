import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { ISOLATED_FILES } from '../../vitest.config';
import { sourceFiles } from './clockAssertions';

// Most test files share one process with the files run before them (vitest.config.ts). A file that
// mocks a module, stubs the environment or a global, swaps the timers or spies on a shared object
// would leave that change to the files after it, and make their outcome depend on the order: such
// a file must run in a process of its own.

const root = join(__dirname, '../..');

/** What a test file does that outlives it in a shared process, by its words; undefined when none. */
function sharedStateChange(source: string): string | undefined {
  const patterns: Array<[RegExp, string]> = [
    [/\bvi\.(do)?mock\(/, 'mocks a module'],
    [/\bvi\.(stubEnv|stubGlobal)\(/, 'stubs the environment or a global'],
    [/\bvi\.useFakeTimers\(/, 'swaps the timers'],
    [/\bvi\.spyOn\(/, 'spies on a shared object'],
    [/process\.env(\.[A-Za-z_]+|\[[^\]]+\])\s*=[^=]|delete process\.env/, 'changes process.env'],
    [/process\.chdir\(/, 'changes the working folder'],
    [/globalThis\.[A-Za-z_$]+\s*=[^=]/, 'sets a global'],
    [/@vitest-environment/, 'runs in another environment'],
  ];
  return patterns.find(([pattern]) => pattern.test(source))?.[1];
}

/** Every test file below test/, fixtures aside, relative to the project root. */
function testFiles(): string[] {
  return sourceFiles(join(root, 'test'))
    .map((path) => relative(root, path))
    .filter((file) => /\.test\.tsx?$/.test(file) && !file.startsWith('test/fixtures/'));
}

describe('test files that change shared state run alone', () => {
  it('reads each kind of change from a file’s source', () => {
    expect(sharedStateChange("vi.mock('electron', () => ({}))")).toBe('mocks a module');
    expect(sharedStateChange("vi.stubEnv('HOME', '/x')")).toBe('stubs the environment or a global');
    expect(sharedStateChange('vi.useFakeTimers();')).toBe('swaps the timers');
    expect(sharedStateChange("process.env.TOOLGATE_HOME = '/x';")).toBe('changes process.env');
    expect(sharedStateChange("process.env['PATH'] = '';")).toBe('changes process.env');
    expect(sharedStateChange('if (process.env.CI === "true") {}')).toBeUndefined();
    expect(sharedStateChange("const spy = vi.fn(); expect(spy).toHaveBeenCalled();")).toBeUndefined();
  });

  it('lists every such file in ISOLATED_FILES, and no pattern that matches no file', () => {
    // This file names the patterns it looks for, and changes nothing.
    const files = testFiles().filter((file) => file !== relative(root, __filename));
    const isolated = picomatch(ISOLATED_FILES);
    const unlisted = files
      .map((file) => [file, sharedStateChange(readFileSync(join(root, file), 'utf8'))] as const)
      .filter(([file, change]) => change !== undefined && !isolated(file))
      .map(([file, change]) => `${file} ${change}: add it to ISOLATED_FILES in vitest.config.ts`);
    expect(unlisted).toEqual([]);
    const unused = ISOLATED_FILES.filter((glob) => !files.some((file) => picomatch(glob)(file)));
    expect(unused).toEqual([]);
  });
});
