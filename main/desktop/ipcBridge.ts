import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import { BRIDGE_EVENT_NAMES, BRIDGE_METHOD_NAMES, type BridgeReply } from '../../shared/contract';
import { bridgeMethodChannel, type BridgeEventMessage } from '../../shared/ipcChannels';
import type { ConsoleBackend } from '../bridge/consoleBackend';
import { dispatchBridgeRequest } from '../bridge/dispatch';
import type { SenderCheck } from './senderCheck';

/** The part of ipcMain the wiring uses. */
export type BridgeIpcMain = Pick<IpcMain, 'handle' | 'removeHandler'>;

/** The reply to a message from anything but our console page. */
function refusal(method: string): BridgeReply<never> {
  return {
    ok: false,
    error: { code: 'EPERMISSION', message: `${method} refused: the sender is not the Toolgate console window` },
  };
}

function trusts(isTrustedSender: SenderCheck, event: IpcMainInvokeEvent): boolean {
  try {
    return isTrustedSender(event) === true;
  } catch {
    return false;
  }
}

/**
 * Serves every bridge method on its own invoke channel: checks the sender first, then lets
 * dispatchBridgeRequest validate and run it. Handlers never throw. Returns the function that
 * removes them (idempotent).
 */
export function registerBridgeIpc(ipcMain: BridgeIpcMain, backend: ConsoleBackend, isTrustedSender: SenderCheck): () => void {
  const channels = BRIDGE_METHOD_NAMES.map((method) => {
    const channel = bridgeMethodChannel(method);
    ipcMain.handle(channel, async (event: IpcMainInvokeEvent, request: unknown): Promise<BridgeReply<unknown>> => {
      if (!trusts(isTrustedSender, event)) {
        console.warn(`[toolgate] refused ${channel} from ${safeFrameUrl(event)}`);
        return refusal(method);
      }
      return dispatchBridgeRequest(backend, method, request);
    });
    return channel;
  });
  let disposed = false;
  return () => {
    if (disposed) return;
    disposed = true;
    for (const channel of channels) ipcMain.removeHandler(channel);
  };
}

function safeFrameUrl(event: IpcMainInvokeEvent): string {
  try {
    return event.senderFrame?.url ?? 'a frame that is gone';
  } catch {
    return 'a frame that is gone';
  }
}

/**
 * Pushes every bridge event to the console through `send`; a failing send is logged, never thrown
 * into the gate. Returns the function that unsubscribes them all (idempotent).
 */
export function forwardBridgeEvents(backend: ConsoleBackend, send: (message: BridgeEventMessage) => void): () => void {
  const unsubscribes = BRIDGE_EVENT_NAMES.map((event) =>
    backend.subscribe(event, (payload) => {
      try {
        send({ event, payload });
      } catch (error) {
        console.warn(`[toolgate] could not forward ${event} to the console: ${(error as Error).message}`);
      }
    }),
  );
  let disposed = false;
  return () => {
    if (disposed) return;
    disposed = true;
    for (const unsubscribe of unsubscribes) {
      try {
        unsubscribe();
      } catch (error) {
        console.warn(`[toolgate] could not unsubscribe a console event: ${(error as Error).message}`);
      }
    }
  };
}
