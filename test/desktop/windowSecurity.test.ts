import { EventEmitter } from 'node:events';
import { beforeEach, describe, expect, it, vi } from 'vitest';

/** A webContents double: handlers registered with on() are fired by hand. */
class FakeWebContents extends EventEmitter {
  url = 'file:///app/out/renderer/index.html';
  windowOpenHandler: ((details: unknown) => unknown) | undefined;
  setWindowOpenHandler = vi.fn((handler: (details: unknown) => unknown) => {
    this.windowOpenHandler = handler;
  });
  getURL = () => this.url;
}

const electron = vi.hoisted(() => {
  const created: { options: Record<string, unknown>; window: unknown }[] = [];
  return { created };
});

vi.mock('electron', async () => {
  const { EventEmitter: Emitter } = await import('node:events');
  class BrowserWindow extends Emitter {
    readonly webContents = new FakeWebContents();
    show = vi.fn();
    loadURL = vi.fn(async () => {});
    loadFile = vi.fn(async () => {});
    constructor(readonly options: Record<string, unknown>) {
      super();
      electron.created.push({ options, window: this });
    }
  }
  return { BrowserWindow };
});

const { createMainWindow, loadRenderer } = await import('../../main/desktop/mainWindow');
const { CONTENT_SECURITY_POLICY, hardenSession, withContentSecurityPolicy } = await import(
  '../../main/desktop/sessionSecurity'
);

type Window = EventEmitter & { webContents: FakeWebContents; show: ReturnType<typeof vi.fn> };

function openWindow() {
  const window = createMainWindow({ preloadPath: '/app/out/preload/index.cjs' }) as unknown as Window;
  const { options } = electron.created.at(-1)!;
  return { window, options, contents: window.webContents };
}

function navigation(url: string) {
  return { url, preventDefault: vi.fn() };
}

describe('console window', () => {
  beforeEach(() => {
    electron.created.length = 0;
  });

  it('isolates the page: context isolation, sandbox, no Node, web security, our preload', () => {
    const { options } = openWindow();
    expect(options.webPreferences).toEqual({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    });
  });

  it('stays hidden until ready-to-show', () => {
    const { window, options } = openWindow();
    expect(options.show).toBe(false);
    expect(window.show).not.toHaveBeenCalled();
    window.emit('ready-to-show');
    expect(window.show).toHaveBeenCalledTimes(1);
  });

  it('denies every new window', () => {
    const { contents } = openWindow();
    expect(contents.setWindowOpenHandler).toHaveBeenCalledTimes(1);
    expect(contents.windowOpenHandler!({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
    expect(contents.windowOpenHandler!({ url: contents.url })).toEqual({ action: 'deny' });
  });

  it('prevents navigation away, allows a reload of the same page', () => {
    const { contents } = openWindow();
    const away = navigation('https://evil.example/');
    contents.emit('will-navigate', away);
    expect(away.preventDefault).toHaveBeenCalled();
    const otherFile = navigation('file:///etc/passwd');
    contents.emit('will-navigate', otherFile);
    expect(otherFile.preventDefault).toHaveBeenCalled();
    const reload = navigation(contents.url);
    contents.emit('will-navigate', reload);
    expect(reload.preventDefault).not.toHaveBeenCalled();
  });

  it('prevents <webview>', () => {
    const { contents } = openWindow();
    const attach = { preventDefault: vi.fn() };
    contents.emit('will-attach-webview', attach, {}, {});
    expect(attach.preventDefault).toHaveBeenCalled();
  });

  it('loads the dev server URL or the built file', async () => {
    const { window } = openWindow();
    const target = window as unknown as { loadURL: ReturnType<typeof vi.fn>; loadFile: ReturnType<typeof vi.fn> };
    await loadRenderer(target as never, { kind: 'dev', url: 'http://localhost:5173/' });
    expect(target.loadURL).toHaveBeenCalledWith('http://localhost:5173/');
    await loadRenderer(target as never, { kind: 'file', path: '/app/out/renderer/index.html' });
    expect(target.loadFile).toHaveBeenCalledWith('/app/out/renderer/index.html');
  });
});

describe('session hardening', () => {
  function fakeSession() {
    const session = {
      headersListener: undefined as undefined | ((details: unknown, callback: (response: unknown) => void) => void),
      requestHandler: undefined as undefined | ((...args: unknown[]) => void),
      checkHandler: undefined as undefined | ((...args: unknown[]) => boolean),
      webRequest: {
        onHeadersReceived: vi.fn((listener) => {
          session.headersListener = listener;
        }),
      },
      setPermissionRequestHandler: vi.fn((handler) => {
        session.requestHandler = handler;
      }),
      setPermissionCheckHandler: vi.fn((handler) => {
        session.checkHandler = handler;
      }),
    };
    hardenSession(session as never);
    return session;
  }

  it('puts the CSP on every response, replacing one the response carried', () => {
    const session = fakeSession();
    const callback = vi.fn();
    session.headersListener!(
      { url: 'file:///x', responseHeaders: { 'content-security-policy': ["default-src *"], 'X-Other': ['1'] } },
      callback,
    );
    expect(callback).toHaveBeenCalledWith({
      responseHeaders: { 'X-Other': ['1'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] },
    });
    expect(withContentSecurityPolicy(undefined)).toEqual({ 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
  });

  it('uses the renderer policy: self only, no inline or remote script', () => {
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
        "font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'",
    );
  });

  it('denies every permission request and check', () => {
    const session = fakeSession();
    for (const permission of ['media', 'notifications', 'clipboard-read', 'openExternal']) {
      const callback = vi.fn();
      session.requestHandler!({}, permission, callback, {});
      expect(callback).toHaveBeenCalledWith(false);
      expect(session.checkHandler!({}, permission, 'file://', {})).toBe(false);
    }
  });
});
