import { randomUUID } from 'node:crypto';
import { isJsonObject } from '../../shared/jsonLimits';

/**
 * The gate's own refusal of an upstream message past maxMessageBytes, on either transport. It is
 * told apart from what a server says by what it is, never by its words: a server that writes "exceeded
 * maximum size" in a log line or an error answer gets no EQUOTA and no "the gate stopped reading".
 */
export class MessageTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the server's message exceeded maximum size of ${maxBytes} bytes; the gate stopped reading it`);
  }
}

/**
 * The mark of the JSON-RPC error the gate answers a request with when its event-stream answer was
 * cut (see requestSignals.ts): a value no server has seen, so no server's own error can carry it.
 */
export const GATE_REFUSAL_MARK = randomUUID();

/** Whether an error is the gate's refusal of an oversized message: its own object, or its marked answer to a request. */
export function isMessageTooLarge(error: unknown): boolean {
  if (error instanceof MessageTooLarge) return true;
  const data = (error as { data?: unknown } | null)?.data;
  return isJsonObject(data) && data.gateRefusal === GATE_REFUSAL_MARK;
}
