import WebSocket from 'ws';
import { toBridgeReply, type BridgeMethodName, type BridgeReply } from '../../shared/contract';
import { GateError } from '../../shared/errors';
import { existsSync, readFileSync } from 'node:fs';
import { statePaths } from '../state/paths';
import { readGateAddress, type GateAddress } from '../state/stateFolder';

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

/** The running gate of a state folder and the person's console token, or why the CLI cannot reach it. */
export function consoleOfRunningGate(home: string, task: string): { address: GateAddress; consoleToken: string } | { problem: string } {
  let address: GateAddress;
  try {
    address = readGateAddress(home);
  } catch (error) {
    if (!(error instanceof GateError)) throw error;
    return { problem: `${task}, and ${error.message}; then run this again` };
  }
  const { consoleToken } = statePaths(home);
  if (!existsSync(consoleToken)) {
    return { problem: `the gate at ${address.mcpUrl} serves no browser console, so the CLI cannot ask it: use the desktop window's audit explorer` };
  }
  return { address, consoleToken: readFileSync(consoleToken, 'utf8').trim() };
}
