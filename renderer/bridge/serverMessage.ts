import { BridgeFailureSchema, type BridgeReply, type WsServerMessage } from '../../shared/contract';
import { isJsonObject } from '../../shared/jsonLimits';

/** A server frame the bridge could use, or why it could not. */
export type ParsedServerMessage =
  | { ok: true; message: WsServerMessage }
  | { ok: false; problem: string };

function parseReply(value: unknown): BridgeReply<unknown> | undefined {
  if (!isJsonObject(value)) return undefined;
  if (value.ok === true) return { ok: true, value: value.value };
  if (value.ok !== false) return undefined;
  const failure = BridgeFailureSchema.safeParse(value.error);
  return failure.success ? { ok: false, error: failure.data } : undefined;
}

/**
 * Reads one text frame from the gate. The shape is checked by hand because shared/ declares the
 * server message as a type only; payloads are checked against the contract by the caller, which
 * knows which schema applies.
 */
export function parseServerMessage(data: unknown): ParsedServerMessage {
  if (typeof data !== 'string') return { ok: false, problem: 'a binary frame (the bridge speaks JSON text)' };
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return { ok: false, problem: 'a frame that is not JSON' };
  }
  if (!isJsonObject(value)) return { ok: false, problem: 'a frame that is not a JSON object' };
  if (value.type === 'reply') {
    const reply = parseReply(value.reply);
    if (typeof value.id !== 'number' || !reply) return { ok: false, problem: 'a malformed reply' };
    return { ok: true, message: { type: 'reply', id: value.id, reply } };
  }
  // Names are checked against the contract by the caller before anything is dispatched.
  if (value.type === 'event') {
    if (typeof value.event !== 'string') return { ok: false, problem: 'an event without a name' };
    return { ok: true, message: { type: 'event', event: value.event as never, payload: value.payload } };
  }
  if (value.type === 'events') {
    if (!Array.isArray(value.events)) return { ok: false, problem: 'a batch of events that is not a list' };
    const events = value.events.filter((item): item is { event: string; payload: unknown } => isJsonObject(item) && typeof item.event === 'string');
    if (events.length !== value.events.length) return { ok: false, problem: 'a batch holding an event without a name' };
    return { ok: true, message: { type: 'events', events: events.map(({ event, payload }) => ({ event: event as never, payload })) } };
  }
  return { ok: false, problem: `a frame of unknown type ${JSON.stringify(value.type)}` };
}
