import { describe, expect, it, vi } from 'vitest';
import type { IpcMainInvokeEvent } from 'electron';
import type { CheckedWindow } from '../../main/desktop/senderCheck';

vi.mock('electron', () => ({}));

const { createSenderCheck } = await import('../../main/desktop/senderCheck');
const { isRendererUrl, resolveRendererLocation } = await import('../../main/desktop/rendererLocation');

const INDEX = '/app/out/renderer/index.html';
const FILE_RENDERER = { kind: 'file', path: INDEX } as const;
const DEV_RENDERER = { kind: 'dev', url: 'http://localhost:5173/' } as const;

type Frame = { url: string; parent: Frame | null; processId: number; routingId: number };

function frame(url: string, overrides: Partial<Frame> = {}): Frame {
  return { url, parent: null, processId: 7, routingId: 1, ...overrides };
}

/** A window whose main frame shows `url`. */
function fakeWindow(url: string, destroyed = false) {
  const contents = { id: 42, mainFrame: frame(url) };
  return { isDestroyed: () => destroyed, webContents: contents } as unknown as CheckedWindow & {
    webContents: typeof contents;
  };
}

function eventFrom(sender: { id: number }, senderFrame: Frame | null): IpcMainInvokeEvent {
  return { sender, senderFrame } as unknown as IpcMainInvokeEvent;
}

describe('createSenderCheck', () => {
  const url = `file://${INDEX}`;

  it('trusts the main frame of our window showing our renderer (any hash)', () => {
    const window = fakeWindow(url);
    const check = createSenderCheck(() => window, FILE_RENDERER);
    expect(check(eventFrom(window.webContents, frame(url)))).toBe(true);
    expect(check(eventFrom(window.webContents, frame(`${url}#/approvals`)))).toBe(true);
  });

  it('refuses a subframe', () => {
    const window = fakeWindow(url);
    const check = createSenderCheck(() => window, FILE_RENDERER);
    expect(check(eventFrom(window.webContents, frame(url, { parent: frame(url), routingId: 2 })))).toBe(false);
    expect(check(eventFrom(window.webContents, frame(url, { routingId: 2 })))).toBe(false);
    expect(check(eventFrom(window.webContents, frame(url, { parent: frame(url) })))).toBe(false);
  });

  it('refuses another webContents', () => {
    const window = fakeWindow(url);
    const check = createSenderCheck(() => window, FILE_RENDERER);
    expect(check(eventFrom({ id: 43 }, frame(url)))).toBe(false);
  });

  it('refuses a page that is not our renderer', () => {
    const window = fakeWindow(url);
    const check = createSenderCheck(() => window, FILE_RENDERER);
    for (const other of ['file:///etc/passwd', 'file:///app/out/renderer/other.html', 'https://evil.example/', 'about:blank', 'nonsense']) {
      expect(check(eventFrom(window.webContents, frame(other)))).toBe(false);
    }
  });

  it('refuses when there is no frame, no window, a destroyed window, or the frame throws', () => {
    const window = fakeWindow(url);
    expect(createSenderCheck(() => window, FILE_RENDERER)(eventFrom(window.webContents, null))).toBe(false);
    expect(createSenderCheck(() => undefined, FILE_RENDERER)(eventFrom(window.webContents, frame(url)))).toBe(false);
    const destroyed = fakeWindow(url, true);
    expect(createSenderCheck(() => destroyed, FILE_RENDERER)(eventFrom(destroyed.webContents, frame(url)))).toBe(false);
    const disposed = {
      sender: window.webContents,
      get senderFrame(): Frame {
        throw new Error('Render frame was disposed');
      },
    } as unknown as IpcMainInvokeEvent;
    expect(createSenderCheck(() => window, FILE_RENDERER)(disposed)).toBe(false);
  });

  it('in dev, trusts the dev server origin only', () => {
    const window = fakeWindow('http://localhost:5173/');
    const check = createSenderCheck(() => window, DEV_RENDERER);
    expect(check(eventFrom(window.webContents, frame('http://localhost:5173/#/audit')))).toBe(true);
    expect(check(eventFrom(window.webContents, frame('http://localhost:5174/')))).toBe(false);
    expect(check(eventFrom(window.webContents, frame(`file://${INDEX}`)))).toBe(false);
  });
});

describe('renderer location', () => {
  it('uses the dev server only when unpackaged', () => {
    const dev = 'http://localhost:5173/';
    expect(resolveRendererLocation({ devServerUrl: dev, isPackaged: false, builtIndexPath: INDEX })).toEqual(DEV_RENDERER);
    expect(resolveRendererLocation({ devServerUrl: dev, isPackaged: true, builtIndexPath: INDEX })).toEqual(FILE_RENDERER);
    expect(resolveRendererLocation({ devServerUrl: undefined, isPackaged: false, builtIndexPath: INDEX })).toEqual(FILE_RENDERER);
  });

  it('matches the index file exactly, ignoring query and hash', () => {
    expect(isRendererUrl(`file://${INDEX}?x=1#/tools`, FILE_RENDERER)).toBe(true);
    expect(isRendererUrl(`file://${INDEX}/../index.html`, FILE_RENDERER)).toBe(true);
    expect(isRendererUrl(`file:///app/out/renderer/index.htm`, FILE_RENDERER)).toBe(false);
    expect(isRendererUrl(`http://localhost:5173/`, FILE_RENDERER)).toBe(false);
  });
});
