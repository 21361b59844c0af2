/**
 * The console's WebSocket handshake on /bridge as a browser sends it, byte by byte: a browser lists
 * its subprotocols with a space after each comma (the `ws` client sends none), an opened console is
 * served the gate's events, and each refusal reaches the audit with its error code. The plain token
 * checks are in requestTokens.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BRIDGE_EVENT_NAMES } from '../../shared/contract';
import type { ConsoleBackend } from '../../main/bridge/consoleBackend';
import type { Refusal } from '../../main/server/refusalAudit';
import type { GateTokens } from '../../main/server/requestGuards';
import { BRIDGE_PROTOCOL, CLOSE_BAD_TOKEN, WsBridgeServer } from '../../main/server/wsBridgeServer';

const TOKENS = { mcp: '5e'.repeat(16), console: '7b'.repeat(16) } satisfies GateTokens;

/** A bridge on a loopback port, the refusals it reported, and the event listeners the console subscribed. */
interface Bridge {
  port: number;
  refusals: Refusal[];
  listeners: Array<(payload: unknown) => void>;
}

let server: Server | undefined;
let bridge: WsBridgeServer | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  bridge?.close();
  await new Promise((closed) => (server ? server.close(closed) : closed(undefined)));
  server = undefined;
});

async function startBridge(): Promise<Bridge> {
  const listeners: Bridge['listeners'] = [];
  const backend = {
    handlers: {},
    subscribe: (_event: string, listener: (payload: unknown) => void) => {
      listeners.push(listener);
      return () => {};
    },
  } as unknown as ConsoleBackend;
  const refusals: Refusal[] = [];
  server = createServer();
  const port = await new Promise<number>((listening) => server!.listen(0, '127.0.0.1', () => listening((server!.address() as AddressInfo).port)));
  bridge = new WsBridgeServer(backend, TOKENS, () => port, (refusal) => refusals.push(refusal));
  server.on('upgrade', (upgrade, socket, head) => bridge!.handleUpgrade(upgrade, socket, head));
  return { port, refusals, listeners };
}

/** What the gate sent first after the handshake: a close frame's code and reason, a text frame, or another control frame. */
type Frame = { close: number; reason: string } | { text: string } | { control: number };

/** Reads the first WebSocket frame the server sends (unmasked, as a server's are). */
function firstFrame(socket: Socket, head: Buffer): Promise<Frame> {
  return new Promise((resolve, reject) => {
    let bytes = head;
    const tryRead = () => {
      if (bytes.length < 2) return;
      const opcode = bytes[0]! & 0x0f;
      let length = bytes[1]! & 0x7f;
      let start = 2;
      if (length === 126) {
        if (bytes.length < 4) return;
        length = bytes.readUInt16BE(2);
        start = 4;
      }
      if (bytes.length < start + length) return;
      const payload = bytes.subarray(start, start + length);
      socket.off('data', onData);
      if (opcode === 0x8) resolve({ close: payload.readUInt16BE(0), reason: payload.subarray(2).toString() });
      else resolve(opcode === 0x1 ? { text: payload.toString() } : { control: opcode });
    };
    const onData = (chunk: Buffer) => {
      bytes = Buffer.concat([bytes, chunk]);
      tryRead();
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('end', () => reject(new Error('the gate closed the connection without a frame')));
    tryRead();
  });
}

/** An empty ping as a client sends it (masked): any open WebSocket answers it with a pong. */
const PING = Buffer.from([0x89, 0x80, ...randomBytes(4)]);

/**
 * Opens /bridge from the console's own page with this Sec-WebSocket-Protocol header (none when
 * undefined): the HTTP status when the upgrade is refused, else the first frame the gate sends,
 * after an event is pushed to whatever the opened console subscribed. With nothing subscribed the
 * client pings, so a connection left open but unserved shows as a pong instead of a wait.
 */
function openBridge({ port, listeners }: Bridge, protocols: string | undefined, origin = `http://127.0.0.1:${port}`): Promise<{ status: number } | Frame> {
  return new Promise((resolve, reject) => {
    const upgrade = request({
      host: '127.0.0.1',
      port,
      path: '/bridge',
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
        Origin: origin,
        ...(protocols === undefined ? {} : { 'Sec-WebSocket-Protocol': protocols }),
      },
    });
    upgrade.once('response', (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0 });
    });
    upgrade.once('upgrade', (_response, socket, head) => {
      sockets.push(socket);
      // The gate serves a console in the same turn as it sends 101: its subscriptions are there now.
      for (const listener of listeners) listener({ from: 'the gate' });
      if (listeners.length === 0) socket.write(PING);
      firstFrame(socket, head).then(resolve, reject);
    });
    upgrade.once('error', reject);
    upgrade.end();
  });
}

describe('a browser\'s handshake on /bridge', () => {
  it('opens for the console token listed after a comma and a space, and the console is sent the gate\'s events', async () => {
    const gate = await startBridge();
    const frame = await openBridge(gate, `${BRIDGE_PROTOCOL}, toolgate.token.${TOKENS.console}`);
    expect(frame).toEqual({ text: expect.any(String) });
    const message = JSON.parse((frame as { text: string }).text) as { type: string; events: Array<{ event: string; payload: unknown }> };
    expect(message.type).toBe('events');
    expect(message.events.map((event) => event.event).sort()).toEqual([...BRIDGE_EVENT_NAMES].sort());
    expect(message.events.every((event) => JSON.stringify(event.payload) === '{"from":"the gate"}')).toBe(true);
    expect(gate.refusals).toEqual([]);
  });

  it('opens for the token listed first, before the bridge\'s own subprotocol', async () => {
    const gate = await startBridge();
    expect(await openBridge(gate, `toolgate.token.${TOKENS.console}, ${BRIDGE_PROTOCOL}`)).toMatchObject({ text: expect.stringContaining('"events"') });
  });

  it('closes a console that offers no subprotocol at all, as one without a token, and audits it as a permission error', async () => {
    const gate = await startBridge();
    expect(await openBridge(gate, undefined)).toEqual({ close: CLOSE_BAD_TOKEN, reason: 'the access token was refused' });
    expect(gate.listeners).toEqual([]);
    expect(gate.refusals).toEqual([expect.objectContaining({ step: 'auth', code: 'EPERMISSION', surface: 'console', origin: `http://127.0.0.1:${gate.port}` })]);
  });

  it('closes on the agents\' token, saying so, and audits it as a permission error', async () => {
    const gate = await startBridge();
    expect(await openBridge(gate, `${BRIDGE_PROTOCOL}, toolgate.token.${TOKENS.mcp}`)).toMatchObject({ close: CLOSE_BAD_TOKEN, reason: expect.stringContaining('the MCP token does not open the console') });
    expect(gate.refusals).toEqual([expect.objectContaining({ step: 'auth', code: 'EPERMISSION', message: expect.stringContaining('MCP token') })]);
  });

  it('answers a foreign page 403 before any handshake, and audits it as a permission error with its origin', async () => {
    const gate = await startBridge();
    expect(await openBridge(gate, `${BRIDGE_PROTOCOL}, toolgate.token.${TOKENS.console}`, 'http://evil.example')).toEqual({ status: 403 });
    expect(gate.refusals).toEqual([expect.objectContaining({ step: 'origin', code: 'EPERMISSION', surface: 'console', origin: 'http://evil.example' })]);
  });
});
