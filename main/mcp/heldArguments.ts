import { isJsonObject } from '../../shared/jsonLimits';
import type { BoundBreach } from '../executor/steps/argumentBounds';
import { argumentBoundBreach } from '../executor/steps/recordedArguments';
import { HELD_ARGUMENTS_META, RAW_ARGUMENTS_META } from './callToolResult';
import { moveOddArgumentsToMeta } from './rawArguments';

/** A request body as the MCP SDK may see it, or why it is refused before the SDK sees it. */
export type SdkBody = { value: unknown } | { refused: string };

/**
 * Readies a parsed request body for the MCP SDK: a tools/call's arguments over the bounds are set
 * aside in `_meta` (values as they are), other odd arguments go to `_meta` as raw text, and a body
 * whose own envelope (params, `_meta`, batch) breaks the bounds is refused: nothing the SDK walks
 * can be a flood.
 */
export function prepareBodyForSdk(body: unknown): SdkBody {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length > 100) return { refused: `the request batches ${messages.length} messages; send at most 100 at once` };
  const prepared: unknown[] = [];
  const ids = new Set<unknown>();
  for (const message of messages) {
    // Two requests of one batch with the same id would both run, and their answers could not be told apart.
    if (isJsonObject(message) && typeof message.method === 'string' && message.id !== undefined && message.id !== null) {
      if (ids.has(message.id)) return { refused: `the batch holds two requests with id ${JSON.stringify(message.id)}; give each request of a batch an id of its own` };
      ids.add(message.id);
    }
    const unnamed = callWithoutName(message);
    if (unnamed) return { refused: unnamed };
    const twice = argumentsSentTwice(message);
    if (twice) return { refused: twice };
    const held = holdOversizedArguments(message);
    const broken = envelopeBreach(held);
    if (broken) return { refused: `the request's envelope (everything but the arguments) breaks a bound: ${broken.message}` };
    prepared.push(moveOddArgumentsToMeta(held));
  }
  return { value: Array.isArray(body) ? prepared : prepared[0] };
}

/** Why a tools/call request cannot name a tool, if it cannot: it has no params object, or no name in it. */
function callWithoutName(message: unknown): string | undefined {
  if (!isJsonObject(message) || message.method !== 'tools/call' || message.id === undefined) return undefined;
  if (isJsonObject(message.params) && typeof message.params.name === 'string') return undefined;
  return 'a tools/call needs "params" with the tool\'s "name" (a string) and its "arguments", e.g. {"name": "echo", "arguments": {"text": "hi"}}';
}

/**
 * Why a tools/call names its arguments in two places, if it does: the agent's own host shows
 * `arguments`, so a call whose `_meta` carries other arguments to run (raw text beside non-empty
 * `arguments`, or the gate's own set-aside slot, which no client may fill) would run something
 * the agent's side never showed. One set of arguments per call.
 */
function argumentsSentTwice(message: unknown): string | undefined {
  if (!isJsonObject(message) || message.method !== 'tools/call' || !isJsonObject(message.params)) return undefined;
  const { arguments: args, _meta: meta } = message.params;
  if (!isJsonObject(meta)) return undefined;
  if (Object.hasOwn(meta, HELD_ARGUMENTS_META)) return `_meta["${HELD_ARGUMENTS_META}"] is the gate's own; send the call's arguments in "arguments"`;
  const hasArguments = args !== undefined && !(isJsonObject(args) && Object.keys(args).length === 0);
  if (Object.hasOwn(meta, RAW_ARGUMENTS_META) && hasArguments) {
    return `the call sends its arguments twice, in "arguments" and as raw text in _meta["${RAW_ARGUMENTS_META}"]; send them once (raw text with "arguments" empty)`;
  }
  return undefined;
}

function holdOversizedArguments(message: unknown): unknown {
  if (!isJsonObject(message) || message.method !== 'tools/call' || !isJsonObject(message.params)) return message;
  const { arguments: args, ...params } = message.params;
  if (args === undefined || argumentBoundBreach(args) === undefined) return message;
  const meta = isJsonObject(params._meta) ? params._meta : {};
  return { ...message, params: { ...params, _meta: { ...meta, [HELD_ARGUMENTS_META]: args } } };
}

/** The bound a message breaks outside the arguments it holds (as they are, set aside, or as raw text), if any. */
function envelopeBreach(message: unknown): BoundBreach | undefined {
  if (!isJsonObject(message) || !isJsonObject(message.params)) return argumentBoundBreach(message);
  const { params, ...rest } = message;
  const { arguments: args, _meta: meta, ...envelope } = params;
  if (isJsonObject(meta)) {
    // Raw text arguments are bounded by the pipeline, by their bytes, before they are parsed.
    const { [HELD_ARGUMENTS_META]: held, [RAW_ARGUMENTS_META]: raw, ...otherMeta } = meta;
    return argumentBoundBreach({ ...rest, params: { ...envelope, _meta: otherMeta } });
  }
  return argumentBoundBreach({ ...rest, params: { ...envelope, _meta: meta } });
}
