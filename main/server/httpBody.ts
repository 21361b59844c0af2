import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_ARGUMENT_DEPTH, nestsDeeperThan } from '../../shared/jsonLimits';
import { jsonShape, MAX_OBJECT_KEYS, MAX_PARSE_COST, SCAN_ABOVE_BYTES } from './jsonShape';

/** Largest request body the gate reads. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Answers with a JSON-RPC error object (id null: the request could not be read). */
export function sendJsonRpcError(response: ServerResponse, status: number, code: number, message: string): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** How deep a request may nest: room for the JSON-RPC envelope around arguments of MAX_ARGUMENT_DEPTH. */
const MAX_BODY_DEPTH = MAX_ARGUMENT_DEPTH + 16;

/** A body that could not be read; the client was already answered with `message`. */
export interface UnreadableBody {
  unreadable: string;
}

/**
 * The bytes of a request body, or undefined once they pass MAX_BODY_BYTES (the rest is left unread).
 * Read with plain events rather than `for await`: the async iterator costs every call a stream
 * wrapper and a promise per chunk, and nearly every call's body is one chunk.
 */
function bodyBytes(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = () => {
      request.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        settle();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      settle();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    // A client that goes away mid-body ends the read as an error, as the stream iterator did.
    const onClose = () => onError(new Error('the request ended before its body did'));
    request.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** Reads and parses a JSON body, answering 413 or a parse error itself when it cannot. */
export async function readJsonBody(request: IncomingMessage, response: ServerResponse): Promise<{ value: unknown } | UnreadableBody> {
  const body = await bodyBytes(request);
  if (body === undefined) {
    const message = `the request body is over ${MAX_BODY_BYTES} bytes`;
    sendJsonRpcError(response, 413, -32600, message);
    request.destroy();
    return { unreadable: message };
  }
  // A large body is looked at before it is parsed: one JSON.parse of a body packed with tiny values
  // or keys would hold every other agent up, so such a body is refused unread.
  const shape = body.length > SCAN_ABOVE_BYTES ? jsonShape(body) : undefined;
  const tooCostly =
    shape && shape.cost > MAX_PARSE_COST
      ? `holds too many values to read (over about ${MAX_PARSE_COST}; a call's arguments may hold at most 200000 values)`
      : shape && shape.widestObject > MAX_OBJECT_KEYS
        ? `holds an object with more than ${MAX_OBJECT_KEYS} keys (a call's arguments may have at most 10000 keys per object)`
        : undefined;
  if (tooCostly) {
    const message = `the request body ${tooCostly}; send less, or split the work over several calls`;
    sendJsonRpcError(response, 413, -32600, message);
    return { unreadable: message };
  }
  // The look and the parse each get a turn of their own, so other requests are served between them.
  if (shape) await new Promise((resolveTurn) => setImmediate(resolveTurn));
  const text = body.toString('utf8');
  try {
    const value = JSON.parse(text) as unknown;
    // The look already measured a large body's nesting; a small one is walked, cheaply.
    if (shape ? shape.depth > MAX_BODY_DEPTH : nestsDeeperThan(value, MAX_BODY_DEPTH)) {
      const message = `the request nests deeper than ${MAX_BODY_DEPTH} levels; send flatter arguments`;
      sendJsonRpcError(response, 400, -32600, message);
      return { unreadable: message };
    }
    return { value };
  } catch (error) {
    const message = `parse error: the request body is not valid JSON (${(error as Error).message})`;
    sendJsonRpcError(response, 400, -32700, message);
    return { unreadable: message };
  }
}
