import type { BrowserWindow, IpcMainInvokeEvent } from 'electron';
import { isRendererUrl, type RendererLocation } from './rendererLocation';

/** Decides whether an IPC message comes from our console page. */
export type SenderCheck = (event: IpcMainInvokeEvent) => boolean;

/** The part of a BrowserWindow the check reads. */
export type CheckedWindow = Pick<BrowserWindow, 'isDestroyed' | 'webContents'>;

/**
 * Trusts a message only if it comes from the main frame of our window while that frame shows our
 * renderer: not a subframe, not another window, not a page it navigated to (VS Code's ipcMain
 * checks the sender frame the same way). Any error while looking counts as untrusted.
 */
export function createSenderCheck(getWindow: () => CheckedWindow | undefined, renderer: RendererLocation): SenderCheck {
  return (event) => {
    try {
      const window = getWindow();
      if (!window || window.isDestroyed()) return false;
      const contents = window.webContents;
      if (event.sender?.id !== contents.id) return false;
      const frame = event.senderFrame;
      const main = contents.mainFrame;
      if (!frame || frame.parent !== null) return false;
      if (frame.processId !== main.processId || frame.routingId !== main.routingId) return false;
      return isRendererUrl(frame.url, renderer);
    } catch {
      return false;
    }
  };
}
