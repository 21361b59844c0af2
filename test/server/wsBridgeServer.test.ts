/**
 * The console's WebSocket server against a console tab that stops reading (frozen, or on a
 * machine too busy to keep up): the gate lets it go instead of holding every event for it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { BridgeEventName } from '../../shared/contract';
import type { ConsoleBackend } from '../../main/bridge/consoleBackend';
import { CLOSE_FELL_BEHIND, MAX_UNSENT_BYTES, WsBridgeServer } from '../../main/server/wsBridgeServer';
import { EVENT_BATCH_MS } from '../../main/server/consoleEventQueue';

const CONSOLE_TOKEN = 'c0ffee'.repeat(8);

/** A backend whose events the test emits by hand. */
function handEmittedBackend() {
  const listeners = new Map<BridgeEventName, Set<(payload: unknown) => void>>();
  const backend = {
    handlers: {} as ConsoleBackend['handlers'],
    subscribe: (event: BridgeEventName, listener: (payload: unknown) => void) => {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener);
      return () => set.delete(listener);
    },
  } as ConsoleBackend;
  const emit = (event: BridgeEventName, payload: unknown) => {
    for (const listener of listeners.get(event) ?? []) listener(payload);
  };
  return { backend, emit };
}

let server: Server | undefined;
let bridge: WsBridgeServer | undefined;

afterEach(async () => {
  bridge?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a console that stops reading', () => {
  it('is let go once more than 16 MiB of events wait for it, with a code that says so', async () => {
    const { backend, emit } = handEmittedBackend();
    server = createServer();
    const port = await new Promise<number>((resolve) => server!.listen(0, '127.0.0.1', () => resolve((server!.address() as AddressInfo).port)));
    bridge = new WsBridgeServer(backend, { mcp: 'agent-token', console: CONSOLE_TOKEN }, () => port);
    server.on('upgrade', (request, socket, head) => bridge!.handleUpgrade(request, socket, head));

    const tab = new WebSocket(`ws://127.0.0.1:${port}/bridge`, ['toolgate.v1', `toolgate.token.${CONSOLE_TOKEN}`], { origin: `http://127.0.0.1:${port}` });
    await new Promise((resolve, reject) => tab.once('open', resolve).once('error', reject));
    const closed = new Promise<number>((resolve) => tab.once('close', (code) => resolve(code)));
    // The tab stops reading: nothing more is taken off its socket.
    (tab as unknown as { _socket: { pause(): void } })._socket.pause();

    // A shell streaming output fast: 1 MiB chunks, a batch at a time, until the gate gives up.
    const chunk = 'x'.repeat(1024 * 1024);
    for (let batch = 0; batch < (2 * MAX_UNSENT_BYTES) / chunk.length + 20; batch++) {
      emit('callOutput', { callId: 'call-1', chunk });
      await pause(EVENT_BATCH_MS + 5);
    }
    (tab as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await closed).toBe(CLOSE_FELL_BEHIND);
  });
});
