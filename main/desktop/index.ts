import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, dialog, ipcMain, Notification, session } from 'electron';
import { BRIDGE_EVENT_CHANNEL } from '../../shared/ipcChannels';
import { startGate, type RunningGate } from '../gate/startGate';
import { gateOptionsFrom } from '../settings/launchSettings';
import { createChildProcessHost } from '../hosts/childProcessHost';
import { detectSandbox, type SandboxMode } from '../hosts/sandbox';
import { createUtilityProcessHost } from '../hosts/utilityProcessHost';
import { createGateShutdown } from './gateShutdown';
import { forwardBridgeEvents, registerBridgeIpc } from './ipcBridge';
import { resolveLaunchOptions } from './launchOptions';
import { createMainWindow, loadRenderer } from './mainWindow';
import { notifyPromptsOnDesktop } from './promptNotifications';
import { resolveRendererLocation } from './rendererLocation';
import { createSenderCheck } from './senderCheck';
import { hardenSession } from './sessionSecurity';

/**
 * The desktop shell's main process (built to out/main/index.js): starts the gate core with tools in
 * Electron utility processes, opens the one console window and wires it to the gate over IPC.
 * Everything else (registry, executor, approvals, audit, MCP) is the shared core.
 */

const here = dirname(fileURLToPath(import.meta.url));
/** The app icon, copied from resources/ into the renderer build; the window and the taskbar use it. */
const APP_ICON = join(here, '../renderer/icons/toolgate-512.png');

let gate: Promise<RunningGate> | undefined;
const shutdown = createGateShutdown(async () => {
  const running = await gate?.catch(() => undefined);
  await running?.close();
});

/** Opens the console window and connects it to the running gate. */
async function openConsole(running: RunningGate): Promise<void> {
  const renderer = resolveRendererLocation({
    devServerUrl: process.env.ELECTRON_RENDERER_URL,
    isPackaged: app.isPackaged,
    builtIndexPath: join(here, '../renderer/index.html'),
  });
  const window = createMainWindow({ preloadPath: join(here, '../preload/index.cjs'), iconPath: APP_ICON });
  const isTrustedSender = createSenderCheck(() => window, renderer);
  const disposeIpc = registerBridgeIpc(ipcMain, running.backend, isTrustedSender);
  const stopEvents = forwardBridgeEvents(running.backend, (message) => {
    if (!window.isDestroyed() && !window.webContents.isDestroyed()) {
      window.webContents.send(BRIDGE_EVENT_CHANNEL, message);
    }
  });
  const stopNotifications = notifyPromptsOnDesktop({
    onPrompt: (listener) => running.backend.subscribe('approvalRequested', listener),
    onResolved: (listener) => running.backend.subscribe('approvalResolved', (outcome) => listener(outcome.approvalId)),
    window,
    supported: Notification.isSupported(),
    create: (options) => new Notification(options),
    openPrompt: (approvalId) => {
      if (!window.isDestroyed() && !window.webContents.isDestroyed()) {
        window.webContents.send(BRIDGE_EVENT_CHANNEL, { event: 'openApproval', payload: { approvalId } });
      }
    },
  });
  window.on('closed', () => {
    try {
      stopNotifications();
      stopEvents();
    } finally {
      disposeIpc();
    }
  });
  await loadRenderer(window, renderer);
}

async function start(): Promise<void> {
  hardenSession(session.defaultSession);
  // macOS takes the Dock's icon from the app, not the window.
  if (process.platform === 'darwin') app.dock?.setIcon(APP_ICON);
  // The same settings as `toolgate serve`; a bad settings file stops here, shown in the error dialog.
  const launch = resolveLaunchOptions({ argv: process.argv, env: process.env, cwd: process.cwd(), homeDir: homedir() });
  // The window answers prompts over IPC: no browser console, so no console token a tool could find.
  gate = startGate({
    home: launch.home,
    ...gateOptionsFrom(launch.settings),
    hostFactory: toolHostFactory(launch.settings.sandbox),
    browserConsole: false,
    settings: launch.report,
    policyRules: launch.policyRules,
  });
  const running = await gate;
  console.log(`[toolgate] gate running: MCP at ${running.mcpUrl}, workspace ${running.gate.workspace}`);
  await openConsole(running);
}

app.enableSandbox();

app.on('before-quit', (event) => {
  if (shutdown.finished) return;
  // Electron does not wait for promises: hold the quit until the gate has closed, then quit again.
  event.preventDefault();
  void shutdown.run().finally(() => app.quit());
});

app.on('window-all-closed', () => app.quit());

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => app.quit());

app
  .whenReady()
  .then(start)
  .catch((error: unknown) => {
    // The main process loads no native addon (the audit store is Node's built-in SQLite), so no ABI mismatch can stop it here.
    const message = error instanceof Error ? error.message : String(error);
    console.error(`[toolgate] could not start: ${message}`);
    dialog.showErrorBox('Toolgate could not start', message);
    void shutdown.run().finally(() => app.exit(1));
  });

/**
 * Tool processes as child processes (Electron run as Node) when bubblewrap can sandbox them, so the
 * desktop gets the same isolation as `toolgate serve`; Electron utility processes otherwise.
 */
function toolHostFactory(mode: SandboxMode) {
  return mode !== 'off' && detectSandbox(mode).kind === 'bubblewrap' ? createChildProcessHost : createUtilityProcessHost;
}
