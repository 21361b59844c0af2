#!/usr/bin/env node
// `npm install`'s build step (the `prepare` script): builds out/ with electron-vite unless it is
// already newer than every source and config file. npm also runs `prepare` whenever the folder is
// linked as a package (the first `npx toolgate`, `npm link`), which would otherwise rebuild for
// half a minute without a word. `npm run build` always builds. The test runs call the same check
// (test/setup/buildOut.ts), so no test runs a bundle older than the sources it was built from.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Everything a build reads: a change to any of these makes out/ stale. */
export const SOURCES = ['main', 'preload', 'renderer', 'shared', 'resources', 'tools', 'electron.vite.config.ts', 'package.json', 'tsconfig.json', 'tsconfig.node.json', 'tsconfig.web.json'];
/** Every entry a build writes: a missing one makes out/ stale. */
export const OUTPUTS = ['out/main/index.js', 'out/main/cli.js', 'out/main/chunks/package.json', 'out/hook/hook.js', 'out/main/toolProcess.js', 'out/main/wasmFetchWorker.js', 'out/main/sdk.js', 'out/preload/index.cjs', 'out/renderer/index.html', 'out/tools/wasm/text_stats/manifest.json', 'out/tools/wasm/file_stats/manifest.json'];

/** The newest modification time of a file or of any file below a folder. */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, entry) => Math.max(latest, newest(join(path, entry))), stat.mtimeMs);
}

/** When out/ was built (its oldest entry, 0 when one is missing) and when a source last changed, under a project root. */
export function buildState(projectRoot = root) {
  const outputs = OUTPUTS.map((file) => join(projectRoot, file));
  const builtMs = outputs.every((file) => existsSync(file)) ? Math.min(...outputs.map((file) => statSync(file).mtimeMs)) : 0;
  const changedMs = Math.max(0, ...SOURCES.map((source) => join(projectRoot, source)).filter((path) => existsSync(path)).map(newest));
  return { builtMs, changedMs, stale: builtMs <= changedMs };
}

/** Builds out/ with electron-vite when a source is newer than it (or an entry is missing); returns whether it built. */
export function buildIfStale(projectRoot = root) {
  if (!buildState(projectRoot).stale) {
    console.log('toolgate: the build in out/ is up to date');
    return false;
  }
  console.log('toolgate: building out/ (electron-vite build, about 30 s)…');
  const build = spawnSync(process.execPath, [join(projectRoot, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: projectRoot, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`electron-vite build failed (exit ${build.status ?? build.signal}); run \`npm run build\` to see why`);
  return true;
}

// Run as a script (not imported by the test setup): build, and say why when the build fails.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  try {
    buildIfStale();
  } catch (error) {
    console.error(`toolgate: ${error.message}`);
    process.exit(1);
  }
}
