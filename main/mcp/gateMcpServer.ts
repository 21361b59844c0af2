import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type LoggingLevel, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import type { AgentInfo, CallSource } from '../../shared/call';
import type { Executor } from '../executor/executor';
import { answerSetLevel, CallLogBudget } from './agentLog';
import { boundedAgent, type AgentDirectory, type DeclaredClient } from './agentDirectory';
import { toCallToolResult, unknownToolError } from './callToolResult';
import { FORWARDED_CLIENT_META, forwardedClient } from './forwardedClient';
import { callThroughGate, GATE_INSTRUCTIONS, listedMcpTools, type ProgressParams } from './gateToolCall';
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

/** A notification a tools/call sends on its own stream while it runs (its progress, its log lines). */
export type CallNotification = { method: 'notifications/progress'; params: ProgressParams } | { method: 'notifications/message'; params: LoggingMessageNotification['params'] };

/** What answering one tools/call needs from the transport that carries it. */
export interface ToolCallExtra {
  sessionId?: string;
  /** Aborts when the agent cancels the call or leaves. */
  signal: AbortSignal;
  /** Sends a notification on the call's own stream, ahead of its result. */
  sendNotification: (notification: CallNotification) => Promise<void>;
}

/** A gate session's answer to one tools/call: its result, or a thrown protocol error (an unknown tool). */
export type ToolCallAnswer = (params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> }, extra: ToolCallExtra) => Promise<CallToolResult>;

/** Each gate session's tools/call answer, for the HTTP endpoint's direct path (directToolCall.ts). */
const directAnswers = new WeakMap<Server, ToolCallAnswer>();

/** The tools/call answer of a server made by createGateMcpServer; undefined for any other server. */
export function directToolCallAnswer(server: Server): ToolCallAnswer | undefined {
  return directAnswers.get(server);
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
  const answerToolCall: ToolCallAnswer = async (params, extra) => {
    const meta = params._meta as Record<string, unknown> | undefined;
    // Who the session is, settled at its first call: a forwarded name sent later, or a different one, is ignored.
    agent ??= sessionAgent(server.getClientVersion(), meta?.[FORWARDED_CLIENT_META], sessionStartedAt);
    if (agent && extra.sessionId) options.agents?.note(extra.sessionId, agent);
    // On the call's own stream, ahead of its result: only this session hears this call's lines.
    const log = new CallLogBudget(
      () => logLevel,
      (logParams) => void extra.sendNotification({ method: 'notifications/message', params: logParams }).catch(() => {}),
    );
    const result = await callThroughGate(
      executor,
      { name: params.name, arguments: params.arguments, meta },
      {
        source,
        // The transport's session id (issued by the gate): prompts are counted and denied per agent by it.
        ...(extra.sessionId ? { agentSession: extra.sessionId } : {}),
        ...(agent ? { agent } : {}),
        // The signal aborts when the agent cancels (the SDK's own request timeout sends that too).
        signal: extra.signal,
        sendProgress: (progress) => extra.sendNotification({ method: 'notifications/progress', params: progress }),
        onLog: (line) => log.line(line),
      },
    );
    log.finish();
    // An unknown tool is a protocol error (invalid params), never a result a client could read as run.
    const unknown = unknownToolError(result);
    if (unknown) throw unknown;
    return toCallToolResult(result);
  };
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => answerToolCall(request.params, extra));
  directAnswers.set(server, answerToolCall);
  return server;
}
