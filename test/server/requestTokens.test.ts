/**
 * Who gets in on the gate's port, checked in-process: the Host and Origin a request must carry, the
 * agents' bearer token on /mcp and the hook's paths, and the person's console token on /bridge. The
 * same refusals through a started gate and the MCP SDK are in test/integration.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { ConsoleBackend } from '../../main/bridge/consoleBackend';
import { mcpTokenRefusal } from '../../main/server/gateHttpServer';
import type { Refusal } from '../../main/server/refusalAudit';
import { bearerToken, foreignHeaders, tokenMatches, type GateTokens } from '../../main/server/requestGuards';
import { BRIDGE_PROTOCOL, CLOSE_BAD_TOKEN, WsBridgeServer } from '../../main/server/wsBridgeServer';

const TOKENS = { mcp: 'a9'.repeat(16), console: 'c0'.repeat(16) } satisfies GateTokens;
const PORT = 43117;

describe('Host and Origin', () => {
  it('lets in the loopback names of this port in any case, without an Origin, and from the console\'s own origin', () => {
    for (const host of [`127.0.0.1:${PORT}`, `localhost:${PORT}`, `[::1]:${PORT}`, `LOCALHOST:${PORT}`]) {
      expect(foreignHeaders({ host }, PORT)).toBeUndefined();
      expect(foreignHeaders({ host, origin: `http://${host}` }, PORT, true)).toBeUndefined();
    }
  });

  it('refuses a rebound or missing Host, and another port of loopback', () => {
    for (const host of [undefined, '', 'evil.example', `evil.example:${PORT}`, `127.0.0.1:${PORT + 1}`, '127.0.0.1', `127.0.0.2:${PORT}`]) {
      expect(foreignHeaders({ host }, PORT)).toMatchObject({ step: 'host' });
    }
  });

  it('refuses a page of another origin, another scheme or port, or an opaque one', () => {
    for (const origin of ['http://evil.example', `https://127.0.0.1:${PORT}`, `http://127.0.0.1:${PORT + 1}`, 'null', `http://127.0.0.1:${PORT}.evil.example`]) {
      expect(foreignHeaders({ host: `127.0.0.1:${PORT}`, origin }, PORT)).toMatchObject({ step: 'origin', message: expect.stringContaining('refused') });
    }
  });

  it('refuses a request without Origin where a browser must send one', () => {
    expect(foreignHeaders({ host: `127.0.0.1:${PORT}` }, PORT, true)).toMatchObject({ step: 'origin' });
  });
});

describe('bearer tokens on /mcp and the hook', () => {
  it('reads the token of an Authorization header in any case of Bearer, and nothing else', () => {
    expect(bearerToken({ authorization: `Bearer ${TOKENS.mcp}` })).toBe(TOKENS.mcp);
    expect(bearerToken({ authorization: `bearer   ${TOKENS.mcp}` })).toBe(TOKENS.mcp);
    for (const authorization of [undefined, '', `Basic ${TOKENS.mcp}`, `Bearer ${TOKENS.mcp} extra`, `xBearer ${TOKENS.mcp}`, 'Bearer ', `Bearer${TOKENS.mcp}`]) {
      expect(bearerToken({ authorization })).toBeUndefined();
    }
  });

  it('matches only the very token: not a prefix, a longer one, one of the same length, or a missing one', () => {
    expect(tokenMatches(TOKENS.mcp, TOKENS.mcp)).toBe(true);
    for (const presented of [TOKENS.mcp.slice(0, -1), `${TOKENS.mcp}0`, `${TOKENS.mcp.slice(0, -1)}0`, '', undefined]) {
      expect(tokenMatches(presented, TOKENS.mcp)).toBe(false);
    }
    expect(tokenMatches('', '')).toBe(false);
    expect(tokenMatches(undefined, undefined)).toBe(false);
    expect(tokenMatches('anything', undefined)).toBe(false);
  });

  it('lets the agents\' token into /mcp, refuses the console token naming it, and refuses anything else', () => {
    expect(mcpTokenRefusal(TOKENS.mcp, TOKENS, '/mcp')).toBeUndefined();
    expect(mcpTokenRefusal(TOKENS.console, TOKENS, '/mcp')).toContain('the console token does not open /mcp');
    for (const presented of [undefined, '', 'guess']) expect(mcpTokenRefusal(presented, TOKENS, '/hooks/claude-code')).toContain('missing or wrong bearer token');
    // A gate with no console token: an absent header is still refused, not taken for the missing console token.
    expect(mcpTokenRefusal(undefined, { mcp: TOKENS.mcp }, '/mcp')).toContain('missing or wrong bearer token');
  });
});

describe('the console token on /bridge', () => {
  let server: Server | undefined;
  let bridge: WsBridgeServer | undefined;
  afterEach(async () => {
    bridge?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  /** A bridge on a loopback port with these tokens, and the refusals it reported. */
  async function startBridge(tokens: GateTokens) {
    const backend = { handlers: {}, subscribe: () => () => {} } as unknown as ConsoleBackend;
    const refusals: Refusal[] = [];
    server = createServer();
    const port = await new Promise<number>((resolve) => server!.listen(0, '127.0.0.1', () => resolve((server!.address() as AddressInfo).port)));
    bridge = new WsBridgeServer(backend, tokens, () => port, (refusal) => refusals.push(refusal));
    server.on('upgrade', (request, socket, head) => bridge!.handleUpgrade(request, socket, head));
    return { port, refusals };
  }

  /**
   * Opens /bridge offering these subprotocols: 'open' once the bridge answers a request (a refused
   * socket is closed before it answers anything), or the close code and reason the gate gave.
   */
  function connect(port: number, protocols: string[]): Promise<'open' | { code: number; reason: string }> {
    const tab = new WebSocket(`ws://127.0.0.1:${port}/bridge`, protocols, { origin: `http://127.0.0.1:${port}` });
    return new Promise((resolve, reject) => {
      tab.once('error', reject);
      tab.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
      tab.once('open', () => tab.send(JSON.stringify({ id: 1, method: 'getInfo', params: {} })));
      tab.once('message', () => {
        tab.close();
        resolve('open');
      });
    });
  }

  it('opens for the console token, wherever it stands among the subprotocols', async () => {
    const { port, refusals } = await startBridge(TOKENS);
    expect(await connect(port, [BRIDGE_PROTOCOL, `toolgate.token.${TOKENS.console}`])).toBe('open');
    expect(await connect(port, [`toolgate.token.${TOKENS.console}`, BRIDGE_PROTOCOL])).toBe('open');
    expect(refusals).toEqual([]);
  });

  it('closes on the agents\' token, saying so, on a wrong or missing token, and records each refusal', async () => {
    const { port, refusals } = await startBridge(TOKENS);
    expect(await connect(port, [BRIDGE_PROTOCOL, `toolgate.token.${TOKENS.mcp}`])).toEqual({ code: CLOSE_BAD_TOKEN, reason: expect.stringContaining('the MCP token does not open the console') });
    expect(await connect(port, [BRIDGE_PROTOCOL, `toolgate.token.${TOKENS.console.slice(0, -1)}1`])).toEqual({ code: CLOSE_BAD_TOKEN, reason: 'the access token was refused' });
    expect(await connect(port, [BRIDGE_PROTOCOL, `toolgate.tokenx${TOKENS.console}`])).toEqual({ code: CLOSE_BAD_TOKEN, reason: 'the access token was refused' });
    expect(await connect(port, [BRIDGE_PROTOCOL])).toEqual({ code: CLOSE_BAD_TOKEN, reason: 'the access token was refused' });
    expect(refusals).toHaveLength(4);
    expect(refusals.every((refusal) => refusal.step === 'auth' && refusal.surface === 'console')).toBe(true);
  });

  it('never opens when the gate serves no console to a browser, whatever token comes', async () => {
    const { port } = await startBridge({ mcp: TOKENS.mcp });
    for (const token of [TOKENS.mcp, TOKENS.console, '']) {
      expect(await connect(port, [BRIDGE_PROTOCOL, `toolgate.token.${token}`])).toMatchObject({ code: CLOSE_BAD_TOKEN, reason: expect.stringContaining('desktop window') });
    }
  });

  it('refuses a client that sends no Origin, as only a browser page may open the console', async () => {
    const { port, refusals } = await startBridge(TOKENS);
    const tab = new WebSocket(`ws://127.0.0.1:${port}/bridge`, [BRIDGE_PROTOCOL, `toolgate.token.${TOKENS.console}`]);
    const status = await new Promise<number | undefined>((resolve) => {
      tab.once('unexpected-response', (_request, response) => resolve(response.statusCode));
      tab.once('open', () => resolve(101));
      tab.once('error', () => resolve(undefined));
    });
    expect(status).toBe(403);
    expect(refusals).toMatchObject([{ step: 'origin', surface: 'console' }]);
  });

  it('refuses a page of another origin before any handshake, and records it', async () => {
    const { port, refusals } = await startBridge(TOKENS);
    const tab = new WebSocket(`ws://127.0.0.1:${port}/bridge`, [BRIDGE_PROTOCOL, `toolgate.token.${TOKENS.console}`], { origin: 'http://evil.example' });
    const status = await new Promise<number | undefined>((resolve) => {
      tab.once('unexpected-response', (_request, response) => resolve(response.statusCode));
      tab.once('error', () => resolve(undefined));
    });
    expect(status).toBe(403);
    expect(refusals).toMatchObject([{ step: 'origin', surface: 'console' }]);
  });
});
