import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../../shared/result';
import { isJsonObject } from '../../shared/jsonLimits';
import { resultText } from '../executor/executor';

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
