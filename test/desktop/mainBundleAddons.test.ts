/**
 * The desktop main process must load no native addon: one built for Node's ABI would stop
 * Electron's main process from starting (and one rebuilt for Electron would break the CLI). Walks
 * the built bundle (`npx electron-vite build` first) from out/main/index.js through every chunk,
 * dynamic import and require call, and every package named with all it depends on.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findAddons, loadSitesOf } from './bundleImports';

const OUT = resolve(__dirname, '../../out/main');
/** Electron's own module is provided by the app at run time; the npm package is only its downloader. */
const PROVIDED = new Set(['electron']);

describe('the desktop main bundle', () => {
  it('reaches no native addon and no package that loads one', () => {
    const entry = join(OUT, 'index.js');
    expect(existsSync(entry), 'build first: npx electron-vite build').toBe(true);
    const { findings, direct, files } = findAddons(entry, PROVIDED);
    expect(files.length).toBeGreaterThan(1);
    expect(findings.map((finding) => `${finding.chain.join(' → ')}: ${finding.why}`)).toEqual([]);
    expect(direct).toEqual([]);
  });

  it('while the tool process entry does reach node-pty (the walk finds what is there)', () => {
    const { findings } = findAddons(join(OUT, 'toolProcess.js'), PROVIDED);
    expect(findings.map((finding) => finding.chain.at(-1))).toContain('node-pty');
  });
});

describe('the import walk', () => {
  it('finds static, dynamic, re-exported and required modules, through createRequire too', () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolgate-walk-'));
    try {
      const file = join(folder, 'sample.js');
      writeFileSync(
        file,
        [
          "import { a } from './chunk-a.js';",
          "export * from 'pkg-reexported';",
          "const later = () => import('pkg-dynamic');",
          "import { createRequire } from 'node:module';",
          'const requireHere = createRequire(import.meta.url);',
          "const pty = requireHere('pkg-required');",
          "const direct = createRequire(import.meta.url)('pkg-direct');",
          "const cjs = require('pkg-cjs');",
          "process.dlopen(module, '/x/addon.node');",
          'const notLoaded = requireHere.resolve("pkg-resolved-only/file.wasm");',
        ].join('\n'),
      );
      const { sites, direct } = loadSitesOf(file);
      expect(sites.map((site) => `${site.how} ${site.specifier}`)).toEqual([
        'import ./chunk-a.js',
        'import pkg-reexported',
        'dynamic import pkg-dynamic',
        'import node:module',
        'require pkg-required',
        'require pkg-direct',
        'require pkg-cjs',
      ]);
      expect(direct).toHaveLength(1);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
