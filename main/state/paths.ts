import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The state folder: TOOLGATE_HOME, or ~/.toolgate. */
export function resolveHome(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.TOOLGATE_HOME || join(homedir(), '.toolgate'));
}

/** The files a gate keeps in its state folder. */
export function statePaths(home: string) {
  return {
    home,
    /** The agents' MCP bearer token (the name predates the console token; agents' MCP configs point at it). */
    token: join(home, 'token'),
    /** The person's console token: opens /bridge only, never /mcp; appears in no MCP config (mode 0600). */
    consoleToken: join(home, 'console-token'),
    audit: join(home, 'audit.db'),
    auditHead: join(home, 'audit.head'),
    gate: join(home, 'gate.json'),
    /** The Unix socket Claude Code's hook reaches the gate on (mode 0600), besides the loopback port. */
    hookSocket: join(home, 'hook.sock'),
    /** Secrets that tool arguments name as `$ENV.NAME` (mode 0600; `toolgate secret set`). */
    secrets: join(home, 'secrets.json'),
    /** The Ed25519 key that signs audit checkpoints (mode 0600): beside the audit database, never inside it. */
    checkpointKey: join(home, 'checkpoint-key'),
    /** The before-images of calls that changed the workspace, for undo (tools never see the state folder). */
    undoStore: join(home, 'undo-store'),
  };
}

let packageInfo: { root: string; version: string } | undefined;

/** Toolgate's own package.json (source checkout or install), found from this file once. */
function toolgatePackage(): { root: string; version: string } {
  if (packageInfo) return packageInfo;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version: string };
      if (name === 'toolgate') {
        packageInfo = { root: dir, version };
        return packageInfo;
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the toolgate package folder');
    dir = parent;
  }
}

/** The folder of Toolgate's own package.json. */
export function toolgateRoot(): string {
  return toolgatePackage().root;
}

/**
 * The folder of the program that runs tool processes: Node, or Electron in the desktop app. A sandbox
 * hides /tmp, and this program may live there (a Node unpacked under /tmp, an AppImage mounted at
 * /tmp/.mount_…), so it is shown to the tool process like Toolgate's own folder.
 */
export function runtimeFolder(): string {
  return dirname(realpathSync(process.execPath));
}

/** Toolgate's version, from its package.json. */
export function toolgateVersion(): string {
  return toolgatePackage().version;
}

/** The built tool-process entry, audit chain and index workers and renderer (`npm run build` makes them). */
export function builtAssets() {
  const root = toolgateRoot();
  return {
    toolProcess: join(root, 'out/main/toolProcess.js'),
    chainWorker: join(root, 'out/main/chainWorker.js'),
    indexWorker: join(root, 'out/main/indexWorker.js'),
    wasmFetchWorker: join(root, 'out/main/wasmFetchWorker.js'),
    renderer: join(root, 'out/renderer'),
  };
}
