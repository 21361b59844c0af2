import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_ARGUMENT_DEPTH, nestsDeeperThan } from '../../shared/jsonLimits';

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

/** Reads and parses a JSON body, answering 413 or a parse error itself when it cannot. */
export async function readJsonBody(request: IncomingMessage, response: ServerResponse): Promise<{ value: unknown } | UnreadableBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      const message = `the request body is over ${MAX_BODY_BYTES} bytes`;
      sendJsonRpcError(response, 413, -32600, message);
      request.destroy();
      return { unreadable: message };
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    const value = JSON.parse(text) as unknown;
    if (nestsDeeperThan(value, MAX_BODY_DEPTH)) {
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
