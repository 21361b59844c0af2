import type { BridgeEventName, BridgeMethodName } from './contract';

/**
 * The wire names of the desktop bridge, shared by the preload and main's IPC wiring so the two
 * cannot drift. They hold no logic and import nothing at run time, so main may import them too.
 */

/** The channel main pushes every bridge event on. */
export const BRIDGE_EVENT_CHANNEL = 'toolgate:event';

/** The invoke channel of one bridge method: getInfo → toolgate:getInfo. */
export function bridgeMethodChannel<M extends BridgeMethodName>(method: M): `toolgate:${M}` {
  return `toolgate:${method}`;
}

/** A pushed event as it crosses IPC on BRIDGE_EVENT_CHANNEL. */
export interface BridgeEventMessage {
  /** Which event. */
  event: BridgeEventName;
  /** Its payload, already checked against the contract by main. */
  payload: unknown;
}
