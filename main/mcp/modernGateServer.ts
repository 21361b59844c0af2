import { Server, type CallToolResult } from '@modelcontextprotocol/server';
import type { CallSource } from '../../shared/call';
import type { Executor } from '../executor/executor';
import type { ToolRegistry } from '../registry/registry';
import { toolgateVersion } from '../state/paths';
import type { AgentDirectory } from './agentDirectory';
import { CALL_LOG_META, CallLogBudget, requestedLogLevel, type LogMessageParams } from './agentLog';
import { toCallToolResult, unknownToolError } from './callToolResult';
import { declaredCaller } from './declaredAgent';
import { FORWARDED_CLIENT_META } from './forwardedClient';
import { callThroughGate, GATE_INSTRUCTIONS, listedMcpTools } from './gateToolCall';

/** How the per-request servers of the 2026-07-28 endpoint are set up. */
export interface ModernGateServerOptions {
  /** Who the calls say sent them (default `mcp`). */
  source?: CallSource;
  /** Where each declared agent is noted, for the console's Permissions view. */
  agents?: AgentDirectory;
}

/**
 * The gate as a 2026-07-28 (stateless) MCP server for one request: the same tools as a 2025
 * session lists, and tools/call through the same pipeline, answered in the same shape. It lives for
 * one request, so it holds nothing: who is calling comes from the request's own envelope.
 */
export function createModernGateServer(registry: ToolRegistry, executor: Executor, options: ModernGateServerOptions = {}): Server {
  const server = new Server(
    { name: 'toolgate', version: toolgateVersion() },
    // listChanged: agents hear of a changed list on a subscriptions/listen stream (see modernEndpoint).
    { capabilities: { tools: { listChanged: true } }, instructions: GATE_INSTRUCTIONS },
  );
  server.setRequestHandler('tools/list', async () => ({ tools: listedMcpTools(registry) }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    // The request's `_meta` (progress token, raw or held arguments), its envelope keys lifted into ctx.mcpReq.envelope.
    const meta = (ctx.mcpReq._meta ?? {}) as Record<string, unknown>;
    // This revision has no logging: the call's lines come back in its result's _meta.
    const lines: LogMessageParams[] = [];
    const minimum = requestedLogLevel(meta);
    const log = new CallLogBudget(() => minimum, (params) => lines.push(params));
    const caller = declaredCaller(ctx.mcpReq.envelope as Record<string, unknown> | undefined, meta[FORWARDED_CLIENT_META], options.agents);
    const result = await callThroughGate(
      executor,
      { name: request.params.name, arguments: request.params.arguments, meta },
      {
        source: options.source ?? 'mcp',
        ...(caller ?? {}),
        // Aborts when the agent cancels, or leaves: its HTTP request's own signal comes first, as it
        // says the agent left (the SDK's request signal aborts after it, with no such reason).
        signal: ctx.http?.req ? AbortSignal.any([ctx.http.req.signal, ctx.mcpReq.signal]) : ctx.mcpReq.signal,
        sendProgress: (params) => ctx.mcpReq.notify({ method: 'notifications/progress', params }),
        onLog: (line) => log.line(line),
      },
    );
    log.finish();
    // An unknown tool is a protocol error (invalid params), never a result a client could read as run.
    const unknown = unknownToolError(result);
    if (unknown) throw unknown;
    // The v1 and v2 SDKs type one wire shape each their own way; the codec projects it for this era.
    const answer = toCallToolResult(result);
    if (lines.length > 0) answer._meta = { ...answer._meta, [CALL_LOG_META]: lines };
    return server.projectCallToolResult(answer as CallToolResult, undefined);
  });
  return server;
}
