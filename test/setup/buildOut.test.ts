import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { buildIfStale, buildState, OUTPUTS } from '../../scripts/build-if-stale.mjs';
import { toolgateRoot } from '../../main/state/paths';

const VERSION_SOURCE = 'main/version.ts';

describe('the bundle the tests run', () => {
  it('was checked by the run’s setup, and is newer than every source', () => {
    const check = inject('outBuild');
    expect(check, 'vitest.config.ts has no globalSetup that builds a stale out/').toBeDefined();
    expect(check.stale).toBe(false);
    expect(check.builtMs).toBeGreaterThan(check.changedMs);
    // The bundle the tests load is the one the setup checked: nothing replaced it since.
    expect(buildState().builtMs).toBe(check.builtMs);
  });
});

describe('the built modules', () => {
  it('each folder of them holds a package.json of type module, so Node finds how to read a module beside it and not by trying every folder above', () => {
    const root = toolgateRoot();
    const folders = ['out/main', 'out/hook'].flatMap((top) => [top, ...readdirSync(join(root, top), { recursive: true, withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => relative(root, join(entry.parentPath, entry.name)))]);
    const withModules = folders.filter((folder) => readdirSync(join(root, folder)).some((name) => name.endsWith('.js')));
    expect(withModules).toEqual(expect.arrayContaining(['out/main', 'out/main/chunks', 'out/hook']));
    for (const folder of withModules) {
      expect(JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')), folder).toEqual({ type: 'module' });
    }
  });
});

describe('the staleness check (a project in a temporary folder, built by a stand-in for electron-vite)', () => {
  let root: string;
  let clock: number;

  /** Writes a file with a modification time later than every file (and folder) written before it. */
  function write(path: string, text: string): void {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
    clock += 10;
    utimesSync(join(root, path), clock, clock);
    // The stand-in build stamps its entries after this, as a real build's come after the sources it read.
    writeFileSync(join(root, 'clock'), String(clock + 1));
  }

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'toolgate-build-'));
    // Seconds past the folder's own creation, so no folder made below it is newer than the files.
    clock = Math.ceil(statSync(root).mtimeMs / 1000) + 100;
    // The stand-in build copies the version source into every entry, each stamped after every source.
    const outputs = JSON.stringify(OUTPUTS);
    write(
      'node_modules/electron-vite/bin/electron-vite.js',
      `const fs = require('node:fs'); const path = require('node:path');
       const text = fs.readFileSync(${JSON.stringify(VERSION_SOURCE)}, 'utf8');
       const builds = Number(fs.existsSync('builds') ? fs.readFileSync('builds', 'utf8') : 0) + 1;
       fs.writeFileSync('builds', String(builds));
       for (const entry of ${outputs}) { fs.mkdirSync(path.dirname(entry), { recursive: true }); const at = Number(fs.readFileSync('clock', 'utf8')); fs.writeFileSync(entry, text); fs.utimesSync(entry, at, at); }`,
    );
    write('package.json', '{"type":"commonjs"}');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('builds when out/ is missing, then finds it fresh and does not build again', () => {
    write(VERSION_SOURCE, 'export const version = 1;');
    expect(buildState(root).stale).toBe(true);
    expect(buildIfStale(root)).toBe(true);
    expect(buildState(root).stale).toBe(false);
    expect(buildIfStale(root)).toBe(false);
    expect(readFileSync(join(root, 'builds'), 'utf8')).toBe('1');
  });

  it('a changed source is what the rebuilt bundle holds', () => {
    write(VERSION_SOURCE, 'export const version = 1;');
    buildIfStale(root);
    write(VERSION_SOURCE, 'export const version = 2;');
    expect(buildState(root).stale).toBe(true);
    expect(buildIfStale(root)).toBe(true);
    expect(readFileSync(join(root, 'out/main/cli.js'), 'utf8')).toBe('export const version = 2;');
  });

  it('a change deep in a source folder, or to a config file, counts; one missing entry of out/ counts', () => {
    write(VERSION_SOURCE, 'export const version = 1;');
    buildIfStale(root);
    write('shared/deeply/nested/rule.ts', 'export {};');
    expect(buildState(root).stale).toBe(true);
    buildIfStale(root);
    write('tsconfig.node.json', '{}');
    expect(buildState(root).stale).toBe(true);
    buildIfStale(root);
    expect(buildState(root).stale).toBe(false);
    rmSync(join(root, 'out/main/toolProcess.js'));
    expect(buildState(root)).toMatchObject({ builtMs: 0, stale: true });
  });

  it('a failing build is an error that says how to see why', () => {
    write(VERSION_SOURCE, 'export const version = 1;');
    write('node_modules/electron-vite/bin/electron-vite.js', 'process.exit(3);');
    expect(() => buildIfStale(root)).toThrow(/electron-vite build failed \(exit 3\); run `npm run build`/);
  });
});
