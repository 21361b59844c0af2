#!/usr/bin/env node
// `npm start`: the desktop console where Electron can run; otherwise the same console in a browser
// (`toolgate serve`), with a plain word about why. Extra arguments go to the gate, e.g.
// `npm start -- --workspace ~/code/project`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

/** The Electron binary, if it is installed; never triggers its download. */
function electronBinary() {
  try {
    const packageDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
    const pathFile = join(packageDir, 'path.txt');
    if (!existsSync(pathFile)) return undefined;
    const binary = join(packageDir, 'dist', readFileSync(pathFile, 'utf8').trim());
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

function tryInstallElectron() {
  const installer = join(root, 'node_modules/electron/install.js');
  if (!existsSync(installer)) return false;
  process.stdout.write('Fetching the Electron binary for the desktop console…\n');
  return spawnSync(process.execPath, [installer], { stdio: 'ignore', timeout: 180_000 }).status === 0 && electronBinary() !== undefined;
}

function run(command, commandArgs, env = process.env) {
  const child = spawn(command, commandArgs, { cwd: root, stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const wantsHeadless = args.includes('--headless') || process.env.TOOLGATE_HEADLESS === '1';
const gateArgs = args.filter((arg) => arg !== '--headless');

/** Whether $TOOLGATE_HOME/settings.json names a workspace (a broken file is left for the gate to report). */
function settingsNamesWorkspace() {
  const file = join(process.env.TOOLGATE_HOME || join(homedir(), '.toolgate'), 'settings.json');
  try {
    return typeof JSON.parse(readFileSync(file, 'utf8')).workspace === 'string';
  } catch {
    return false;
  }
}

// The workspace is what agents may touch. Never default to this folder (Toolgate's own code):
// without --workspace, TOOLGATE_WORKSPACE or a workspace in settings.json, use ~/toolgate-workspace.
if (!gateArgs.some((arg) => arg === '--workspace' || arg.startsWith('--workspace=')) && !process.env.TOOLGATE_WORKSPACE && !settingsNamesWorkspace()) {
  const workspace = join(homedir(), 'toolgate-workspace');
  mkdirSync(workspace, { recursive: true });
  gateArgs.push('--workspace', workspace);
  process.stdout.write(`Workspace: ${workspace} (choose another with \`npm start -- --workspace DIR\`)\n`);
}
const hasDisplay = process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);

if (!wantsHeadless && hasDisplay && (electronBinary() || tryInstallElectron())) {
  // electron-vite does not pass arguments on to the app: the desktop reads the gate's options from here.
  const env = { ...process.env, TOOLGATE_DESKTOP_ARGS: JSON.stringify(gateArgs) };
  run(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'preview'], env);
} else {
  const why = wantsHeadless
    ? 'headless mode was asked for'
    : hasDisplay
      ? 'the Electron binary is not installed and could not be downloaded here'
      : 'there is no display here';
  process.stdout.write(`Starting the console in your browser instead of a desktop window (${why}).\n`);
  run(process.execPath, [join(root, 'bin/toolgate.js'), 'serve', ...gateArgs]);
}
