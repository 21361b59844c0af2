import { RAW_ARGUMENTS_META } from './callToolResult';
import { isJsonObject } from '../../shared/jsonLimits';

/**
 * MCP wants a tools/call's arguments to be an object, and the SDK refuses anything else before the
 * gate sees it, so such a call would leave no audit record. Arguments of another kind (a JSON
 * string the model wrote, an array, null, a number) are moved to `_meta` as raw text instead: the
 * gate's pipeline parses them, refuses them with a clear message and audits the refusal.
 */
export function moveOddArgumentsToMeta(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(moveOddArgumentsToMeta);
  if (!isJsonObject(body) || body.method !== 'tools/call' || !isJsonObject(body.params)) return body;
  const { arguments: args, ...params } = body.params;
  if (args === undefined || isJsonObject(args)) return body;
  const meta = isJsonObject(params._meta) ? params._meta : {};
  const raw = typeof args === 'string' ? args : JSON.stringify(args);
  return { ...body, params: { ...params, _meta: { ...meta, [RAW_ARGUMENTS_META]: raw } } };
}
