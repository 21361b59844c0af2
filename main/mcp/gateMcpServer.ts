import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { AgentInfo, CallSource } from '../../shared/call';
import type { Executor } from '../executor/executor';
import { answerSetLevel, CallLogBudget } from './agentLog';
import { boundedAgent, type AgentDirectory, type DeclaredClient } from './agentDirectory';
import { toCallToolResult, unknownToolError } from './callToolResult';
import { FORWARDED_CLIENT_META, forwardedClient } from './forwardedClient';
import { callThroughGate, GATE_INSTRUCTIONS, listedMcpTools } from './gateToolCall';
import type { ToolRegistry } from '../registry/registry';
import { toolgateVersion } from '../state/paths';

// Where they lived before both protocol eras shared them; existing importers keep their path.
export { HELD_ARGUMENTS_META, RAW_ARGUMENTS_META, toCallToolResult } from './callToolResult';

/**
 * Who a session's calls are from: its client as declared in `initialize`, or, when that client
 * forwards another's name (`toolgate mcp` does; any client can claim to), the forwarded one followed
 * by the session's own as `via`. Both are self-declared; the `via` part is what the session really sent.
 */
function sessionAgent(client: DeclaredClient | undefined, forwardedMeta: unknown, sessionStartedAt: string): AgentInfo | undefined {
  if (!client) return undefined;
  return boundedAgent(client, sessionStartedAt, forwardedClient(forwardedMeta));
}

/** How an MCP server session is set up. */
export interface GateMcpServerOptions {
  /** Who the calls say sent them (default `mcp`). */
  source?: CallSource;
  /** Where the session's client name and version are noted, for the console's Permissions view. */
  agents?: AgentDirectory;
}

/**
 * One MCP server session over the gate: tools/list from the registry, tools/call through the full
 * pipeline, each call carrying the client's name and version from `initialize` and the session's start.
 */
export function createGateMcpServer(registry: ToolRegistry, executor: Executor, options: GateMcpServerOptions = {}): Server {
  const source = options.source ?? 'mcp';
  // The server is made for the initialize request that opens the session.
  let sessionStartedAt = new Date().toISOString();
  const server = new Server(
    { name: 'toolgate', version: toolgateVersion() },
    {
      // logging: a call's log lines (its tool's stderr, its upstream server's log messages) reach the agent at its level.
      capabilities: { tools: { listChanged: true }, logging: {} },
      instructions: GATE_INSTRUCTIONS,
    },
  );
  let agent: AgentInfo | undefined;
  let initialized = false;
  server.oninitialized = () => {
    sessionStartedAt = new Date().toISOString();
    initialized = true;
  };
  // An upstream server connecting, or its tools passing review, changes the list agents see.
  const unsubscribe = registry.onChange(() => {
    if (initialized) void server.sendToolListChanged().catch(() => {});
  });
  const closed = server.onclose;
  server.onclose = () => {
    unsubscribe();
    closed?.();
  };
  // Until the agent sets a level, every line is sent (the SDK's default, which the spec leaves to the server).
  let logLevel: LoggingLevel | undefined;
  answerSetLevel(server, (level) => {
    logLevel = level;
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listedMcpTools(registry) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const meta = request.params._meta as Record<string, unknown> | undefined;
    // Who the session is, settled at its first call: a forwarded name sent later, or a different one, is ignored.
    agent ??= sessionAgent(server.getClientVersion(), meta?.[FORWARDED_CLIENT_META], sessionStartedAt);
    if (agent && extra.sessionId) options.agents?.note(extra.sessionId, agent);
    // On the call's own stream, ahead of its result: only this session hears this call's lines.
    const log = new CallLogBudget(
      () => logLevel,
      (params) => void extra.sendNotification({ method: 'notifications/message', params }).catch(() => {}),
    );
    const result = await callThroughGate(
      executor,
      { name: request.params.name, arguments: request.params.arguments, meta },
      {
        source,
        // The transport's session id (issued by the gate): prompts are counted and denied per agent by it.
        ...(extra.sessionId ? { agentSession: extra.sessionId } : {}),
        ...(agent ? { agent } : {}),
        // extra.signal aborts when the agent cancels (the SDK's own request timeout sends that too).
        signal: extra.signal,
        sendProgress: (params) => extra.sendNotification({ method: 'notifications/progress', params }),
        onLog: (line) => log.line(line),
      },
    );
    log.finish();
    // An unknown tool is a protocol error (invalid params), never a result a client could read as run.
    const unknown = unknownToolError(result);
    if (unknown) throw unknown;
    return toCallToolResult(result);
  });
  return server;
}
