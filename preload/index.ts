import { contextBridge, ipcRenderer, type IpcRenderer, type IpcRendererEvent } from 'electron';
import {
  BRIDGE_EVENT_NAMES,
  BRIDGE_METHOD_NAMES,
  BridgeError,
  subscriptionName,
  type BridgeEventName,
  type ConsoleBridge,
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

/**
 * Unwraps a BridgeReply: the value, or a BridgeError carrying main's code. Note that contextBridge
 * hands the page a copy of a thrown error with its message only; `code` survives inside this world.
 */
function unwrapReply(method: string, reply: unknown): unknown {
  if (isRecord(reply) && reply.ok === true && 'value' in reply) return reply.value;
  if (isRecord(reply) && reply.ok === false && isRecord(reply.error)) {
    const { code, message } = reply.error;
    throw new BridgeError(String(code), String(message));
  }
  throw new BridgeError('EBRIDGE', `${method}: malformed reply from the gate`);
}

function isEventMessage(message: unknown, event: BridgeEventName): message is BridgeEventMessage {
  return isRecord(message) && message.event === event && 'payload' in message;
}

/** Builds the object exposed as window.toolgate, over the given ipcRenderer. */
export function createPreloadBridge(ipc: BridgeIpcRenderer): ConsoleBridge {
  const bridge: Record<string, unknown> = {};
  for (const method of BRIDGE_METHOD_NAMES) {
    bridge[method] = async (request: unknown) =>
      unwrapReply(method, await ipc.invoke(bridgeMethodChannel(method), request ?? {}));
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
  return Object.freeze(bridge) as ConsoleBridge;
}

contextBridge.exposeInMainWorld('toolgate', createPreloadBridge(ipcRenderer));
