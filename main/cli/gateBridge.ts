import WebSocket from 'ws';
import { toBridgeReply, type BridgeMethodName, type BridgeReply } from '../../shared/contract';
import { GateError } from '../../shared/errors';
import type { GateAddress } from '../state/stateFolder';

/** The console's subprotocol and the prefix its token travels under (see main/server/wsBridgeServer.ts). */
const BRIDGE_PROTOCOL = 'toolgate.v1';
const TOKEN_PREFIX = 'toolgate.token.';

/** An event the gate pushed while the request was under way. */
export interface PushedEvent {
  event?: string;
  payload?: unknown;
}

/**
 * Sends one request over the running gate's console bridge, as the console does, with the
 * person's console token, and resolves with its reply. `onEvents` hears what the gate pushes
 * meanwhile (it sends events in batches; a lone event is one too).
 */
export function bridgeRequest(
  address: GateAddress,
  consoleToken: string,
  method: BridgeMethodName,
  params: unknown,
  onEvents?: (events: PushedEvent[]) => void,
): Promise<BridgeReply<unknown>> {
  const origin = `http://127.0.0.1:${address.port}`;
  const ws = new WebSocket(`ws://127.0.0.1:${address.port}/bridge`, [BRIDGE_PROTOCOL, `${TOKEN_PREFIX}${consoleToken}`], { origin });
  return new Promise((resolveReply, reject) => {
    ws.on('open', () => ws.send(JSON.stringify({ id: 1, method, params })));
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as PushedEvent & { type?: string; id?: number; reply?: unknown; events?: PushedEvent[] };
      const pushed = message.type === 'events' ? (message.events ?? []) : message.type === 'event' ? [message] : [];
      if (pushed.length > 0) onEvents?.(pushed);
      if (message.type !== 'reply' || message.id !== 1) return;
      ws.close();
      resolveReply(toBridgeReply(method, message.reply));
    });
    ws.on('error', (error) => reject(new GateError('ENOTFOUND', `no gate answers at ${origin}: start it again with \`toolgate serve --workspace DIR\` (${error.message})`)));
    ws.on('close', (code, reason) => reject(new GateError('EPERMISSION', `the gate closed the console connection (${code}${reason.length > 0 ? `: ${reason.toString()}` : ''})`)));
  });
}
