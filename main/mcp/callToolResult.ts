import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../../shared/result';
import { isJsonObject } from '../../shared/jsonLimits';
import { canonicalize } from '../../shared/canonicalJson';

/** `_meta` key under which a client may send the arguments as raw JSON text (the gate parses and audits it). */
export const RAW_ARGUMENTS_META = 'toolgate/rawArguments';

/**
 * `_meta` key under which arguments over the gate's bounds are handed past the MCP SDK to the
 * pipeline, which refuses them (EVALIDATION, naming the bound) and audits the refusal: the SDK's
 * schemas would otherwise walk and copy every key of a flood before the gate could refuse it.
 */
export const HELD_ARGUMENTS_META = 'toolgate/heldArguments';

/** `_meta` key of an upstream result's finding count: things in it that may be aimed at the model (the result is as the server sent it). */
export const RESULT_FINDINGS_META = 'toolgate/findings';

/** What an upstream tool's result data holds: the server's content blocks and structured content. */
interface UpstreamData {
  content: unknown[];
  structuredContent?: Record<string, unknown>;
}

/**
 * The MCP view of a gate result: text for every client, structured data where the tool declared an
 * object output. An upstream server's result (checked, hashed and within its cap) goes on as its
 * own content blocks and structured content. Both protocol eras (2025 sessions and 2026 stateless
 * requests) answer with this one shape; the type is the v1 SDK's, whose wire form the v2 SDK shares.
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
      // An upstream result the agent should read with care: how many things in it may be aimed at the model.
      ...(result.meta.findings !== undefined ? { [RESULT_FINDINGS_META]: result.meta.findings } : {}),
    },
  };
}

/** JSON-RPC's code for invalid params, which the MCP spec gives a call of a tool the server does not have. */
export const INVALID_PARAMS = -32602;

/** How long an unknown tool's error message may be: enough for the names of about a hundred tools. */
export const UNKNOWN_TOOL_MESSAGE_CHARS = 2000;

/**
 * A JSON-RPC error answered instead of a result. Thrown from a request handler, both SDK eras send
 * its code, message and data as they are (an McpError would prefix the message with its code).
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/**
 * The JSON-RPC error for a call of a tool the gate does not have, or undefined for any other
 * result: the MCP spec counts an unknown tool among protocol errors (invalid params), not among a
 * tool's failures, so a client never reads it as a tool that ran. The gate's lookup refused and
 * audited the call already; its message, which names the tools so a model can correct itself, is
 * passed on cut to a bound at a name's end.
 */
export function unknownToolError(result: ToolResult): ProtocolError | undefined {
  const { error } = result;
  // The lookup step's refusal is the only ENOTFOUND that names the tools the gate has.
  if (error?.code !== 'ENOTFOUND' || !isJsonObject(error.details) || !Array.isArray(error.details.known)) return undefined;
  return new ProtocolError(INVALID_PARAMS, boundedToolList(resultText(result), error.details.known), {
    'toolgate/callId': result.meta.callId,
    'toolgate/errorCode': error.code,
  });
}

/**
 * A message that ends with the list of the gate's tools, cut to UNKNOWN_TOOL_MESSAGE_CHARS at the
 * end of a name, saying how many were left out (tools/list has them all).
 */
function boundedToolList(message: string, known: readonly unknown[]): string {
  if (message.length <= UNKNOWN_TOOL_MESSAGE_CHARS) return message;
  const names = known.filter((name): name is string => typeof name === 'string');
  const list = names.join(', ');
  if (!message.endsWith(list)) return `${message.slice(0, UNKNOWN_TOOL_MESSAGE_CHARS - 1)}…`;
  let text = message.slice(0, message.length - list.length);
  const room = UNKNOWN_TOOL_MESSAGE_CHARS - 60;
  let shown = 0;
  for (const name of names) {
    const next = `${shown === 0 ? '' : ', '}${name}`;
    if (text.length + next.length > room) break;
    text += next;
    shown++;
  }
  return `${text}${shown === 0 ? '' : ', '}… and ${names.length - shown} more (tools/list names them all)`;
}

/** The canonical text of a result's data, as agents receive it. */
export function resultText(result: ToolResult): string {
  if (!result.ok) return `${result.error?.code}: ${result.error?.message}`;
  // A cut output is already text: its head and the truncation notice.
  if (result.meta.truncated && typeof result.data === 'string') return result.data;
  return canonicalize(result.data ?? null);
}
