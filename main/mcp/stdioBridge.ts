import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { agentLeftReason } from '../approvals/agentLeft';
import { toolgateVersion } from '../state/paths';
import { answerSetLevel } from './agentLog';
import { ProtocolError } from './callToolResult';
import { FORWARDED_CLIENT_META } from './forwardedClient';
import { GateNotRunningError, LONG_CALL, type GateConnection } from './gateClient';

/**
 * `toolgate mcp`: an MCP server on stdin/stdout that forwards tools/list and tools/call to the
 * running gate, for clients that launch a command. Progress from the gate is passed on. A gate that
 * restarts is found again; with none running, a call returns a result the agent can read and act on.
 */
export async function runStdioBridge(upstream: GateConnection): Promise<void> {
  // Aborted first when the bridge stops: the gate's cancel of each call still waiting then says the
  // agent left (the SDK's own abort at close carries no reason).
  const leaving = new AbortController();
  // logging: the gate's log lines for the agent's calls come through, at the level the agent sets (the gate filters).
  const server = new Server({ name: 'toolgate', version: toolgateVersion() }, { capabilities: { tools: {}, logging: {} } });
  answerSetLevel(server, (level) =>
    // A gate that is not running now hears the level when the bridge next connects.
    upstream.setLogLevel(level).catch(() => {}),
  );
  // One agent per bridge and one gate session: the gate sends a call's lines ahead of its result, and stdio keeps that order.
  upstream.hearLogs((params) => void server.sendLoggingMessage(params).catch(() => {}));
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    try {
      return await upstream.send((client) => client.listTools(request.params));
    } catch (error) {
      if (error instanceof GateNotRunningError) throw new McpError(ErrorCode.InternalError, error.message);
      throw error;
    }
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const progressToken = request.params._meta?.progressToken;
    // The gate names the agent by what its client declared to this bridge.
    const agent = server.getClientVersion();
    const params = agent ? { ...request.params, _meta: { ...request.params._meta, [FORWARDED_CLIENT_META]: { name: agent.name, version: agent.version } } } : request.params;
    try {
      return await upstream.send(async (client, session) => {
        // The gate's progress is taken off the wire as it comes (see ProgressTap), and passed on before the result.
        const tapped =
          progressToken === undefined
            ? undefined
            : session.progress.watch((progress) => {
                void extra.sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken } }).catch(() => {});
              });
        try {
          return await client.request({ method: 'tools/call', params: tapped ? { ...params, _meta: { ...params._meta, ...tapped.meta } } : params }, CallToolResultSchema, {
            ...LONG_CALL,
            signal: AbortSignal.any([leaving.signal, extra.signal]),
            ...(tapped ? { onprogress: () => {} } : {}),
          });
        } finally {
          tapped?.end();
        }
      });
    } catch (error) {
      if (error instanceof GateNotRunningError) return { content: [{ type: 'text', text: error.message }], isError: true };
      throw asSentByGate(error);
    }
  });
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(new StdioServerTransport());
  // The client ends a stdio session by closing our stdin (then waits for us to exit); the SDK's
  // transport does not notice the end of input, so close here instead of lingering until SIGTERM.
  // A signal closes the same way, so the gate's session ends with us.
  const stop = () => {
    leaving.abort(agentLeftReason('its stdio bridge closed'));
    void server.close();
  };
  process.stdin.once('end', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    await closed;
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    await upstream.close();
  }
}

/**
 * The gate's JSON-RPC error (an unknown tool's invalid params) as the gate sent it: the SDK's client
 * wraps it in an McpError whose message starts "MCP error CODE: ", which the agent's client would add again.
 */
function asSentByGate(error: unknown): unknown {
  if (!(error instanceof McpError)) return error;
  const data = error.data !== null && typeof error.data === 'object' ? (error.data as Record<string, unknown>) : undefined;
  return new ProtocolError(error.code, error.message.replace(/^MCP error -?\d+: /, ''), data);
}

/**
 * `toolgate mcp` when no gate runs: still speaks MCP on stdio, so the client shows the person why
 * instead of a bare "server closed". Every request (initialize first) is answered with an error
 * carrying `message`; the process ends when the client closes stdin.
 */
export async function answerGateNotRunning(message: string): Promise<void> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  transport.onmessage = (incoming) => {
    if (!('id' in incoming) || !('method' in incoming)) return;
    void transport.send({ jsonrpc: '2.0', id: incoming.id, error: { code: ErrorCode.InternalError, message } }).catch(() => {});
  };
  await transport.start();
  const stop = () => void transport.close();
  process.stdin.once('end', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await closed;
}
