#!/usr/bin/env node
// `npm install`'s build step (the `prepare` script): builds out/ with electron-vite unless it is
// already newer than every source and config file. npm also runs `prepare` whenever the folder is
// linked as a package (the first `npx toolgate`, `npm link`), which would otherwise rebuild for
// half a minute without a word. `npm run build` always builds.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = ['main', 'preload', 'renderer', 'shared', 'resources', 'electron.vite.config.ts', 'package.json', 'tsconfig.json', 'tsconfig.node.json', 'tsconfig.web.json'];
const OUTPUTS = ['out/main/index.js', 'out/main/cli.js', 'out/hook/hook.js', 'out/main/toolProcess.js', 'out/main/sdk.js', 'out/preload/index.cjs', 'out/renderer/index.html'];

/** The newest modification time of a file or of any file below a folder. */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, entry) => Math.max(latest, newest(join(path, entry))), stat.mtimeMs);
}

const outputs = OUTPUTS.map((file) => join(root, file));
const built = outputs.every((file) => existsSync(file)) ? Math.min(...outputs.map((file) => statSync(file).mtimeMs)) : 0;
const changed = Math.max(...SOURCES.map((source) => join(root, source)).filter((path) => existsSync(path)).map(newest));
if (built > changed) {
  console.log('toolgate: the build in out/ is up to date');
  process.exit(0);
}
console.log('toolgate: building out/ (electron-vite build, about 30 s)…');
const build = spawnSync(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: root, stdio: 'inherit' });
process.exit(build.status ?? 1);
