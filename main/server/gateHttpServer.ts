import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CLAUDE_CODE_PATHS, serveHookRequest } from '../hooks/hookRoute';
import { McpHttpEndpoint } from '../mcp/mcpHttpEndpoint';
import { createGateMcpServer } from '../mcp/gateMcpServer';
import { McpRoute } from '../mcp/mcpRoute';
import { createModernGateServer } from '../mcp/modernGateServer';
import { ModernMcpEndpoint } from '../mcp/modernEndpoint';
import type { Gate } from '../gate/createGate';
import { sendJsonRpcError } from './httpBody';
import { bearerToken, foreignHeaders, requestPathname, tokenMatches, type GateTokens } from './requestGuards';
import { RefusalAudit, type Refusal } from './refusalAudit';
import { serveStatic } from './staticFiles';
import { listenOnUnixSocket } from './unixSocket';
import { WsBridgeServer } from './wsBridgeServer';

/** The gate on loopback: MCP at /mcp, Claude Code's hook at /hooks/claude-code (and its Bash runs at …/run), the console at /, its bridge at /bridge. */
export interface GateHttpServer {
  readonly port: number;
  readonly mcpUrl: string;
  /** The console URL with the console token in its fragment (never sent to the server by the browser). */
  readonly consoleUrl: string;
  close(): Promise<void>;
}

/** Why a bearer token was refused on an agents' path (/mcp, the hook), naming the console token when that is what came. */
export function mcpTokenRefusal(presented: string | undefined, tokens: GateTokens, pathname: string): string | undefined {
  if (tokenMatches(presented, tokens.mcp)) return undefined;
  if (tokenMatches(presented, tokens.console)) {
    return `the console token does not open ${pathname}: agents send "Authorization: Bearer <the token in $TOOLGATE_HOME/token>"`;
  }
  return 'missing or wrong bearer token: send "Authorization: Bearer <the token in $TOOLGATE_HOME/token>"';
}

/** Why a request on the hook socket is refused for its headers: only a browser sends Origin. */
function originOnSocket(request: IncomingMessage): { step: 'origin'; message: string } | undefined {
  const origin = request.headers.origin;
  return origin === undefined ? undefined : { step: 'origin', message: `requests from the origin ${JSON.stringify(origin)} are refused on the hook socket` };
}

/**
 * Clients are told to keep an idle connection 5 s (Keep-Alive: timeout=5, Node's default), and keep
 * it a little less. The gate keeps it 30 s more before closing it: a request an agent sends near the
 * end of those 5 s, to a gate whose thread was held meanwhile (a loaded machine), is still read when
 * the thread catches up, where closing at 6 s cut the connection under it (the agent got ECONNRESET
 * for a call the gate never saw). Node reads the option from 22.19 on.
 */
const SERVER_OPTIONS = { keepAliveTimeoutBuffer: 30_000 };

/** Starts the loopback server for a gate. */
export async function startGateHttpServer(
  gate: Gate,
  options: { tokens: GateTokens; port?: number; rendererRoot: string; hookSocket?: string },
): Promise<GateHttpServer> {
  let port = options.port ?? 0;
  const refusals = new RefusalAudit(gate.audit);
  /** Records a request refused as unreadable where it came in. */
  const unreadableAt = (surface: Refusal['surface']) => (message: string) => refusals.record({ step: 'parse', code: 'EVALIDATION', message, surface });
  const unreadable = unreadableAt('mcp');
  const hookUnreadable = unreadableAt('hook');
  // Agents speak MCP 2025 (sessions) or 2026-07-28 (stateless); one route serves both at /mcp.
  const sessions = new McpHttpEndpoint(() => createGateMcpServer(gate.registry, gate.executor, { agents: gate.agents }), unreadable);
  const modern = new ModernMcpEndpoint(() => createModernGateServer(gate.registry, gate.executor, { agents: gate.agents }), unreadable);
  const stopWatchingTools = gate.registry.onChange(() => modern.toolsChanged());
  const mcp = new McpRoute(sessions, modern, unreadable);
  const bridge = new WsBridgeServer(gate.backend, options.tokens, () => port, (refusal) => refusals.record(refusal));
  /** Serves one request; `hooksOnly` for the hook socket, which serves Claude Code's hook paths and nothing else. */
  const serve = (request: IncomingMessage, response: ServerResponse, hooksOnly: boolean) => {
    // Host and Origin guard the port against DNS rebinding; no browser reaches the socket, and a
    // request there that carries an Origin anyway was relayed from one, so it is refused.
    const foreign = hooksOnly ? originOnSocket(request) : foreignHeaders(request.headers, port);
    if (foreign) {
      const surface = request.url?.startsWith('/mcp') ? 'mcp' : 'console';
      refusals.record({ ...foreign, code: 'EPERMISSION', surface, origin: request.headers.origin });
      response.writeHead(403, { 'content-type': 'text/plain' }).end(`${foreign.message}\n`);
      return;
    }
    const pathname = requestPathname(request.url);
    if (pathname === undefined) {
      response.writeHead(400, { 'content-type': 'text/plain' }).end('Bad request target\n');
      return;
    }
    if (hooksOnly && !CLAUDE_CODE_PATHS.includes(pathname)) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end(`This socket serves Claude Code's hook only (${CLAUDE_CODE_PATHS.join(', ')})\n`);
      return;
    }
    if (pathname === '/mcp' || CLAUDE_CODE_PATHS.includes(pathname)) {
      const message = mcpTokenRefusal(bearerToken(request.headers), options.tokens, pathname);
      if (message !== undefined) {
        refusals.record({ step: 'auth', code: 'EPERMISSION', message, surface: 'mcp', origin: request.headers.origin });
        response.setHeader('www-authenticate', 'Bearer realm="toolgate"');
        sendJsonRpcError(response, 401, -32001, message);
        return;
      }
      // An agent is here: its first call finds a tool process started, or on its way.
      gate.pool.warm();
      const served = pathname === '/mcp' ? mcp.handle(request, response) : serveHookRequest(gate.hooks, request, response, pathname, hookUnreadable);
      served.catch((error: Error) => {
        sendJsonRpcError(response, 500, -32603, `the gate failed to serve the request: ${error.message}`);
      });
      return;
    }
    serveStatic(options.rendererRoot, request, response);
  };
  const server: HttpServer = createServer(SERVER_OPTIONS, (request, response) => serve(request, response, false));
  server.on('upgrade', (request, socket, head) => {
    if (requestPathname(request.url) !== '/bridge') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    bridge.handleUpgrade(request, socket, head);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  // Claude Code's hook reaches the gate over this socket in the state folder as well: the same
  // route, token and checks as on the port, without a TCP connection per tool call.
  let hookServer: HttpServer | undefined = options.hookSocket === undefined ? undefined : createServer(SERVER_OPTIONS, (request, response) => serve(request, response, true));
  try {
    if (hookServer) await listenOnUnixSocket(hookServer, options.hookSocket!);
  } catch {
    // A folder that takes no socket (some network file systems) leaves the hook the port, as before.
    hookServer = undefined;
  }
  const base = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;
  return {
    port,
    mcpUrl: `${base}/mcp`,
    consoleUrl: options.tokens.console === undefined ? `${base}/` : `${base}/#token=${options.tokens.console}`,
    close: () => {
      closing ??= (async () => {
        bridge.close();
        stopWatchingTools();
        await Promise.all([sessions.close(), modern.close()]);
        server.closeAllConnections();
        hookServer?.closeAllConnections();
        await Promise.all([server, hookServer].map((listening) => listening && new Promise<void>((resolve) => listening.close(() => resolve()))));
      })();
      return closing;
    },
  };
}
