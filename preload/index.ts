import { contextBridge, ipcRenderer, type IpcRenderer, type IpcRendererEvent } from 'electron';
import {
  BRIDGE_EVENT_NAMES,
  BRIDGE_METHOD_NAMES,
  subscriptionName,
  toBridgeReply,
  type BridgeEventName,
  type DesktopBridge,
} from '../shared/contract';
import { BRIDGE_EVENT_CHANNEL, bridgeMethodChannel, type BridgeEventMessage } from '../shared/ipcChannels';

/**
 * The desktop bridge: one named method per contract entry and one subscription per event, nothing
 * else. The renderer never sees ipcRenderer or a channel name, so it can ask main only what the
 * contract allows (and main checks the sender and every request anyway).
 */

/** The part of ipcRenderer the bridge uses. */
export type BridgeIpcRenderer = Pick<IpcRenderer, 'invoke' | 'on' | 'removeListener'>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isEventMessage(message: unknown, event: BridgeEventName): message is BridgeEventMessage {
  return isRecord(message) && message.event === event && 'payload' in message;
}

/** Builds the object exposed as window.toolgate, over the given ipcRenderer. */
export function createPreloadBridge(ipc: BridgeIpcRenderer): DesktopBridge {
  const bridge: Record<string, unknown> = {};
  for (const method of BRIDGE_METHOD_NAMES) {
    // The envelope crosses to the page whole: a thrown error would lose its code on the way.
    bridge[method] = async (request: unknown) =>
      toBridgeReply(method, await ipc.invoke(bridgeMethodChannel(method), request ?? {}));
  }
  for (const event of BRIDGE_EVENT_NAMES) {
    bridge[subscriptionName(event)] = (listener: (payload: unknown) => void) => {
      // One wrapper per subscription, so unsubscribing removes exactly this one.
      const onMessage = (_event: IpcRendererEvent, message: unknown) => {
        if (isEventMessage(message, event)) listener(message.payload);
      };
      ipc.on(BRIDGE_EVENT_CHANNEL, onMessage);
      return () => {
        ipc.removeListener(BRIDGE_EVENT_CHANNEL, onMessage);
      };
    };
  }
  return Object.freeze(bridge) as DesktopBridge;
}

contextBridge.exposeInMainWorld('toolgate', createPreloadBridge(ipcRenderer));
