import { BrowserWindow, type WebContents } from 'electron';
import type { RendererLocation } from './rendererLocation';

/** What the console window needs to know. */
export interface MainWindowOptions {
  /** Absolute path of the built preload (out/preload/index.cjs). */
  preloadPath: string;
  /** Absolute path of the app icon PNG, for the window and the taskbar (resources/icons/). */
  iconPath?: string;
}

/**
 * Creates the console window: sandboxed, context-isolated, no Node in the page, hidden until its
 * first paint. Its webContents is hardened before anything loads.
 */
export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 880,
    minHeight: 560,
    show: false,
    title: 'Toolgate',
    ...(options.iconPath ? { icon: options.iconPath } : {}),
    autoHideMenuBar: true,
    webPreferences: {
      preload: options.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  window.once('ready-to-show', () => window.show());
  hardenWebContents(window.webContents);
  return window;
}

/** The part of WebContents the hardening touches. */
export type HardenedContents = Pick<WebContents, 'setWindowOpenHandler' | 'on' | 'getURL'>;

/**
 * Keeps the page where it is: no new windows, no navigation away (a reload of the same URL is
 * fine), no <webview>.
 */
export function hardenWebContents(contents: HardenedContents): void {
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-navigate', (event) => {
    if (event.url !== contents.getURL()) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/** Loads the console page into the window. */
export function loadRenderer(window: Pick<BrowserWindow, 'loadURL' | 'loadFile'>, renderer: RendererLocation): Promise<void> {
  return renderer.kind === 'dev' ? window.loadURL(renderer.url) : window.loadFile(renderer.path);
}
