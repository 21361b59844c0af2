import { RAW_ARGUMENTS_META } from './gateMcpServer';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * MCP wants a tools/call's arguments to be an object, and the SDK refuses anything else before the
 * gate sees it, so such a call would leave no audit record. Arguments of another kind (a JSON
 * string the model wrote, an array, null, a number) are moved to `_meta` as raw text instead: the
 * gate's pipeline parses them, refuses them with a clear message and audits the refusal.
 */
export function moveOddArgumentsToMeta(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(moveOddArgumentsToMeta);
  if (!isPlainObject(body) || body.method !== 'tools/call' || !isPlainObject(body.params)) return body;
  const { arguments: args, ...params } = body.params;
  if (args === undefined || isPlainObject(args)) return body;
  const meta = isPlainObject(params._meta) ? params._meta : {};
  const raw = typeof args === 'string' ? args : JSON.stringify(args);
  return { ...body, params: { ...params, _meta: { ...meta, [RAW_ARGUMENTS_META]: raw } } };
}
