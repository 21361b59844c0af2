/**
 * The built desktop main bundle (out/main/index.js) started for real in Node, with a stand-in for
 * Electron's API (test/fixtures/electronStandIn): the Electron binary cannot be downloaded on every
 * machine, but everything the shell does around it can be watched. It reads the same settings as
 * `toolgate serve`, starts the gate, opens a sandboxed window with the icon and the built console,
 * serves the bridge only to that window's page, and stops cleanly; a bad settings file is shown in
 * the error dialog and nothing starts. A prompt that arrives while the window is not focused shows a
 * system notification naming the tool and the agent; its click brings the window forward on that
 * prompt.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BRIDGE_METHOD_NAMES } from '../../shared/contract';
import { bridgeMethodChannel } from '../../shared/ipcChannels';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { WAIT_MS } from '../fixtures/processes';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REGISTER = join(ROOT, 'test/fixtures/electronStandIn/register.mjs');

interface Logged {
  event: string;
  [key: string]: any;
}

let base: string;
beforeEach(() => {
  base = makeTempFolder();
});
afterEach(() => removeTempFolder(base));

/** Starts the desktop bundle; resolves its log reader and a stop that sends SIGTERM and waits. */
function startDesktop(args: string[]) {
  const log = join(base, 'electron.log');
  writeFileSync(log, '');
  const child = spawn(process.execPath, ['--import', pathToFileURL(REGISTER).href, join(ROOT, 'out/main/index.js')], {
    cwd: base,
    env: { ...process.env, TOOLGATE_HOME: join(base, 'home'), TOOLGATE_DESKTOP_ARGS: JSON.stringify(args), ELECTRON_STAND_IN_LOG: log },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  const events = (): Logged[] =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Logged);
  return { child, events, exited, output: () => output };
}

describe('the desktop shell, started with a stand-in for Electron', () => {
  it('starts the gate from its settings, opens the console window and answers only its page over IPC', async () => {
    const workspace = makeTempFolder();
    try {
      const desktop = startDesktop(['--workspace', workspace, '--port', '0', '--approval-timeout', '42']);
      await expect.poll(() => desktop.events().some((event) => event.event.startsWith('getInfo-from')), { timeout: WAIT_MS }).toBe(true);
      const events = desktop.events();

      const window = events.find((event) => event.event === 'window')!.options;
      expect(window.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
      expect(existsSync(window.webPreferences.preload), 'the built preload').toBe(true);
      expect(existsSync(window.icon), 'the app icon').toBe(true);
      const loaded = events.find((event) => event.event === 'load')!;
      expect(loaded.path).toBe(join(ROOT, 'out/renderer/index.html'));
      expect(existsSync(loaded.path)).toBe(true);

      // Every bridge method has its IPC handler; the page's request reaches the gate and back.
      const channels = events.filter((event) => event.event === 'handle').map((event) => event.channel);
      expect(channels.sort()).toEqual(BRIDGE_METHOD_NAMES.map((method) => bridgeMethodChannel(method)).sort());
      const info = events.find((event) => event.event === 'getInfo')!.reply;
      expect(info.ok, JSON.stringify(info)).toBe(true);
      expect(info.value).toMatchObject({ workspace, approvalTimeoutMs: 42_000 });
      const source = Object.fromEntries(info.value.settings.entries.map((entry: { key: string; source: string }) => [entry.key, entry.source]));
      expect(source).toMatchObject({ workspace: 'flag', approvalTimeoutSeconds: 'flag', sandbox: 'default' });
      // A page elsewhere in the same window is refused.
      expect(events.find((event) => event.event === 'getInfo-from-elsewhere')!.reply.ok).toBe(false);
      expect(existsSync(join(base, 'home/gate.json'))).toBe(true);
      // No browser console on the desktop: no console token an agent's tool could find.
      expect(existsSync(join(base, 'home/console-token'))).toBe(false);

      desktop.child.kill('SIGTERM');
      expect(await desktop.exited).toBe(0);
      expect(existsSync(join(base, 'home/gate.json')), desktop.output()).toBe(false);
    } finally {
      removeTempFolder(workspace);
    }
  });

  it('notifies a prompt by tool and agent while the window is not focused; the click brings the window forward on that prompt', async () => {
    const workspace = makeTempFolder();
    const client = new Client({ name: 'claude-code', version: '2.1.0' });
    try {
      const desktop = startDesktop(['--workspace', workspace, '--port', '0']);
      await expect.poll(() => /MCP at (\S+),/.exec(desktop.output())?.[1], { timeout: WAIT_MS }).toBeTruthy();
      const mcpUrl = /MCP at (\S+),/.exec(desktop.output())![1]!;
      const token = readFileSync(join(base, 'home/token'), 'utf8').trim();
      await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      const call = client.callTool({ name: 'write_file', arguments: { path: 'private-plan.md', content: 'launch codes\n' } }).catch((error: unknown) => error);

      await expect.poll(() => desktop.events().some((event) => event.event === 'send' && event.type === 'openApproval'), { timeout: WAIT_MS }).toBe(true);
      const events = desktop.events();
      const notification = events.find((event) => event.event === 'notification')!.options;
      expect(notification).toEqual({
        title: 'write_file is waiting for your approval',
        body: 'Asked by claude-code 2.1.0. Click to open the prompt.',
        silent: true,
      });
      expect(JSON.stringify(notification)).not.toMatch(/private-plan|launch codes/);
      // The click focused the window, then told the page which prompt to show: the one waiting.
      const kinds = events.map((event) => event.event);
      expect(kinds.indexOf('focus')).toBeGreaterThan(kinds.indexOf('notification-click'));
      const opened = events.find((event) => event.event === 'send' && event.type === 'openApproval')!;
      const approvalsSent = events.filter((event) => event.event === 'send' && event.type === 'approvalRequested');
      expect(approvalsSent).toHaveLength(1);
      expect(opened.channel).toBe('toolgate:event');
      expect(opened.approvalId).toBe(approvalsSent[0]!.approvalId);
      expect(opened.approvalId).toEqual(expect.any(String));

      desktop.child.kill('SIGTERM');
      expect(await desktop.exited).toBe(0);
      await call;
    } finally {
      await client.close().catch(() => {});
      removeTempFolder(workspace);
    }
  });

  it('shows a bad settings file in the error dialog, naming the field and the fix, and starts nothing', async () => {
    const home = join(base, 'home');
    mkdirSync(home);
    writeFileSync(join(home, 'settings.json'), '{"approvalTimeoutSeconds": "soon"}');
    const again = startDesktop(['--port', '0']);
    expect(await again.exited).toBe(1);
    const errorBox = again.events().find((event) => event.event === 'error-box');
    expect(errorBox?.title).toBe('Toolgate could not start');
    expect(errorBox?.message).toContain('settings.json: "approvalTimeoutSeconds"');
    expect(errorBox?.message).toContain('Fix: a whole number of seconds from 1 to 86400');
    expect(again.events().some((event) => event.event === 'window')).toBe(false);
    expect(existsSync(join(home, 'gate.json'))).toBe(false);
  });
});
