import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron, expect, test, type ElectronApplication } from '@playwright/test';
import { BRIDGE_EVENT_NAMES, BRIDGE_METHOD_NAMES, subscriptionName, type ConsoleBridge } from '../shared/contract';

/**
 * Launches the desktop shell for real, where an Electron binary is installed. It finds the binary the
 * way the `electron` package would, but without requiring that package: requiring it downloads the
 * binary when it is missing, which this project's build machines cannot do.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The installed Electron executable, or undefined when there is none. */
function installedElectron(): string | undefined {
  let packageDir: string;
  try {
    packageDir = dirname(createRequire(join(root, 'package.json')).resolve('electron/package.json'));
  } catch {
    return undefined;
  }
  const pathFile = join(packageDir, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const relative = readFileSync(pathFile, 'utf8').trim();
  if (!relative) return undefined;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const binary = override ? join(override, relative) : join(packageDir, 'dist', relative);
  return existsSync(binary) ? binary : undefined;
}

const electronBinary = installedElectron();
type PageGlobals = { toolgate: ConsoleBridge; require?: unknown; process?: unknown };

test.describe('desktop shell', () => {
  test.skip(!electronBinary, 'Electron binary not installed on this machine: desktop shell not launched');

  let app: ElectronApplication | undefined;
  let scratch: string;

  test.beforeAll(async () => {
    expect(existsSync(join(root, 'out/main/index.js')), 'build first: npm run build').toBe(true);
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-desktop-')));
    const workspace = join(scratch, 'workspace');
    mkdirSync(workspace);
    const rootUser = process.platform === 'linux' && process.getuid?.() === 0;
    app = await _electron.launch({
      executablePath: electronBinary,
      args: [...(rootUser ? ['--no-sandbox'] : []), root, '--workspace', workspace],
      env: { ...process.env, TOOLGATE_HOME: join(scratch, 'home') } as Record<string, string>,
      cwd: root,
    });
  });

  test.afterAll(async () => {
    await app?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  test('opens the console with the bridge and no Node in the page', async () => {
    const page = await app!.firstWindow();
    await page.waitForLoadState('domcontentloaded');

    const keys = await page.evaluate(() => Object.keys((globalThis as unknown as PageGlobals).toolgate).sort());
    expect(keys).toEqual([...BRIDGE_METHOD_NAMES, ...BRIDGE_EVENT_NAMES.map(subscriptionName)].sort());

    const info = await page.evaluate(() => (globalThis as unknown as PageGlobals).toolgate.getInfo({}));
    expect(typeof info.version).toBe('string');
    expect(info.workspace).toBe(join(scratch, 'workspace'));

    const leaks = await page.evaluate(() => {
      const page = globalThis as unknown as PageGlobals;
      return { require: typeof page.require, process: typeof page.process };
    });
    expect(leaks).toEqual({ require: 'undefined', process: 'undefined' });
  });
});
