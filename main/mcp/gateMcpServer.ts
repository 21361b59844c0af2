import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentInfo, CallSource } from '../../shared/call';
import type { ToolResult } from '../../shared/result';
import { resultText, type Executor } from '../executor/executor';
import { boundedAgent, type AgentDirectory, type DeclaredClient } from './agentDirectory';
import { FORWARDED_CLIENT_META, forwardedClient } from './forwardedClient';
import type { ToolRegistry } from '../registry/registry';
import { toMcpTool } from '../registry/schemaFormats';
import { toolgateVersion } from '../state/paths';
import { isJsonObject } from '../../shared/jsonLimits';

/** `_meta` key under which a client may send the arguments as raw JSON text (the gate parses and audits it). */
export const RAW_ARGUMENTS_META = 'toolgate/rawArguments';

/**
 * `_meta` key under which arguments over the gate's bounds are handed past the MCP SDK to the
 * pipeline, which refuses them (EVALIDATION, naming the bound) and audits the refusal: the SDK's
 * schemas would otherwise walk and copy every key of a flood before the gate could refuse it.
 */
export const HELD_ARGUMENTS_META = 'toolgate/heldArguments';

const PROGRESS_INTERVAL_MS = 5000;

/** What an upstream tool's result data holds: the server's content blocks and structured content. */
interface UpstreamData {
  content: unknown[];
  structuredContent?: Record<string, unknown>;
}

/**
 * The MCP view of a gate result: text for every client, structured data where the tool declared an
 * object output. An upstream server's result (checked, hashed and within its cap) goes on as its
 * own content blocks and structured content.
 */
export function toCallToolResult(result: ToolResult): CallToolResult {
  const upstream = result.ok && result.meta.upstream && !result.meta.truncated ? (result.data as UpstreamData) : undefined;
  const structured = upstream
    ? upstream.structuredContent !== undefined ? { structuredContent: upstream.structuredContent } : {}
    : result.ok && isJsonObject(result.data) ? { structuredContent: result.data } : {};
  const content = upstream ? (upstream.content as CallToolResult['content']) : [{ type: 'text' as const, text: resultText(result) }];
  return {
    // A call a person edited says so next to its result, so the agent knows what really ran.
    content: [...content, ...(result.meta.edited ? [{ type: 'text' as const, text: result.meta.edited.note }] : [])],
    ...structured,
    isError: !result.ok,
    _meta: {
      'toolgate/callId': result.meta.callId,
      'toolgate/responseHash': result.meta.responseHash,
      'toolgate/durationMs': result.meta.durationMs,
      ...(result.error ? { 'toolgate/errorCode': result.error.code } : {}),
      ...(result.meta.edited ? { 'toolgate/edited': result.meta.edited } : {}),
    },
  };
}

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
      capabilities: { tools: { listChanged: true } },
      instructions:
        'Every call passes through Toolgate: privileged tools wait for a person to approve them in the Toolgate console, ' +
        'and a denial comes back as an error with the reason.',
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
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    // No outputSchema: an output longer than the tool's maxOutputBytes reaches the agent cut, as text,
    // and a client that was promised structured content would refuse that result. Whole object
    // outputs still come with structuredContent.
    tools: registry.listed().map((manifest) => ({ ...toMcpTool(manifest), outputSchema: undefined })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const meta = request.params._meta as Record<string, unknown> | undefined;
    const raw = meta?.[RAW_ARGUMENTS_META];
    const held = meta?.[HELD_ARGUMENTS_META];
    const progressToken = meta?.progressToken;
    let ticks = 0;
    const heartbeat =
      progressToken === undefined
        ? undefined
        : setInterval(() => {
            ticks++;
            void extra
              .sendNotification({
                method: 'notifications/progress',
                params: { progressToken: progressToken as string | number, progress: ticks, message: 'waiting in the gate (approval or tool)' },
              })
              .catch(() => {});
          }, PROGRESS_INTERVAL_MS);
    // Who the session is, settled at its first call: a forwarded name sent later, or a different one, is ignored.
    agent ??= sessionAgent(server.getClientVersion(), meta?.[FORWARDED_CLIENT_META], sessionStartedAt);
    if (agent && extra.sessionId) options.agents?.note(extra.sessionId, agent);
    try {
      // extra.signal aborts when the agent cancels (the SDK's own request timeout sends that too).
      const result = await executor.call(
        {
          tool: request.params.name,
          arguments: held !== undefined ? held : typeof raw === 'string' ? raw : request.params.arguments,
          source,
          // The transport's session id (issued by the gate): prompts are counted and denied per agent by it.
          ...(extra.sessionId ? { agentSession: extra.sessionId } : {}),
          ...(agent ? { agent } : {}),
        },
        {
          signal: extra.signal,
          // An upstream tool's own progress goes on to the agent.
          ...(progressToken === undefined
            ? {}
            : {
                onProgress: (progress: { progress: number; total?: number; message?: string }) => {
                  // Progress must only grow: the heartbeat's ticks and the tool's own numbers share one count.
                  ticks = Math.max(ticks + 1, progress.progress);
                  void extra
                    .sendNotification({
                      method: 'notifications/progress',
                      params: {
                        progressToken: progressToken as string | number,
                        progress: ticks,
                        ...(progress.total !== undefined && progress.total >= ticks ? { total: progress.total } : {}),
                        ...(progress.message ? { message: progress.message } : {}),
                      },
                    })
                    .catch(() => {});
                },
              }),
        },
      );
      return toCallToolResult(result);
    } finally {
      if (heartbeat) clearInterval(heartbeat);
    }
  });
  return server;
}
