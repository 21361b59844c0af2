import type { ConsoleBridge, DesktopBridge } from '../../shared/contract';
import { bridgeFromDesktop } from './desktopBridge';
import { forgetAccessToken, takeAccessToken } from './accessToken';
import { createWsBridge, type WsBridge } from './wsBridge';

declare global {
  interface Window {
    /** The desktop shell's bridge, exposed by the preload; absent in a browser. */
    readonly toolgate?: DesktopBridge;
  }
}

/** The bridge the console will use, or why it has none. */
export type BridgeChoice =
  | { kind: 'desktop'; bridge: ConsoleBridge }
  | { kind: 'websocket'; connection: WsBridge }
  | { kind: 'no-token' };

/** The gate's WebSocket endpoint on the host that served this page. */
export function bridgeUrl(location: Pick<Location, 'protocol' | 'host'>): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/bridge`;
}

/**
 * The desktop preload's bridge when there is one; otherwise a WebSocket bridge to the headless
 * `toolgate serve` that served this page, authenticated by the token from the console URL.
 */
export function selectBridge(): BridgeChoice {
  if (window.toolgate) return { kind: 'desktop', bridge: bridgeFromDesktop(window.toolgate) };
  const sources = { location: window.location, storage: sessionStorageOrMemory(), history: window.history };
  const token = takeAccessToken(sources);
  if (!token) return { kind: 'no-token' };
  const connection = createWsBridge({
    url: bridgeUrl(window.location),
    token,
    WebSocketImpl: window.WebSocket,
  });
  connection.onStateChange((state) => {
    if (state === 'refused') forgetAccessToken(sources);
  });
  return { kind: 'websocket', connection };
}

// Reading window.sessionStorage throws where the browser disables storage; the token then lives
// for this page load only.
function sessionStorageOrMemory(): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> {
  try {
    return window.sessionStorage;
  } catch {
    const memory = new Map<string, string>();
    return {
      getItem: (key) => memory.get(key) ?? null,
      setItem: (key, value) => void memory.set(key, value),
      removeItem: (key) => void memory.delete(key),
    };
  }
}
