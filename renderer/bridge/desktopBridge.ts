import { subscriptionName, unwrapBridgeReply, type ConsoleBridge, type DesktopBridge } from '../../shared/contract';
import { bridgeFromTransport } from './bridgeFromTransport';

/** The console bridge over the desktop preload: its reply envelopes become values or BridgeErrors with their codes. */
export function bridgeFromDesktop(desktop: DesktopBridge): ConsoleBridge {
  const methods = desktop as unknown as Record<string, (request: unknown) => Promise<unknown>>;
  const subscriptions = desktop as unknown as Record<string, (listener: (payload: unknown) => void) => () => void>;
  return bridgeFromTransport({
    request: async (method, params) => unwrapBridgeReply(method, await methods[method]!(params)),
    subscribe: (event, listener) => subscriptions[subscriptionName(event)]!(listener),
  });
}
