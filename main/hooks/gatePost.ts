import { connect, type NetConnectOpts } from 'node:net';
import type { RunningGateEndpoint } from '../state/runningGate';

/** What the gate answered: its JSON (status 200), or an HTTP refusal with the gate's message. */
export type GateReply = { value: unknown } | { refused: number; message: string };

/** The head of an HTTP response: its status line, then its header lines. */
const RESPONSE_HEAD = /^HTTP\/1\.[01] (\d{3})[^\r\n]*((?:\r\n[^\r\n]*)*)$/;

/** A connection refused before any byte was sent: the next way to the gate may be tried. */
class NotConnectedError extends Error {}

/** No way to the gate took the request: no gate runs there (or it is starting or stopping). */
export class GateUnreachableError extends Error {}

/**
 * One POST to the gate over `where` (its Unix socket or loopback port) as HTTP/1.0: the gate's
 * node:http server answers it with a Content-Length body and closes, so the reply is all bytes up
 * to the end. Written over node:net because loading node:http costs a hook about twice Node's own
 * start; the server side stays node:http with the same routes and token checks.
 */
function exchange(where: NetConnectOpts, gate: RunningGateEndpoint, path: string, body: string, timeoutMs: number): Promise<GateReply> {
  return new Promise((resolveReply, reject) => {
    const socket = connect(where);
    let connected = false;
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`the gate gave no answer within ${Math.round(timeoutMs / 1000)} s`)));
    socket.once('connect', () => {
      connected = true;
      const head = [
        `POST ${path} HTTP/1.0`,
        // The Host the gate's loopback checks expect on its port; the socket checks none.
        `Host: ${'path' in where ? 'localhost' : `127.0.0.1:${gate.port}`}`,
        `Authorization: Bearer ${gate.token}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
      ];
      // Written, not ended: the gate takes a half-closed connection for a client that went away.
      socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', (error) => reject(connected ? error : new NotConnectedError(error.message)));
    socket.once('end', () => {
      socket.destroy();
      try {
        resolveReply(replyOf(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** The gate's reply read from a whole HTTP/1.0 response; throws on anything else. */
function replyOf(response: Buffer): GateReply {
  const headEnd = response.indexOf('\r\n\r\n');
  const head = headEnd < 0 ? null : RESPONSE_HEAD.exec(response.toString('latin1', 0, headEnd));
  if (!head) throw new Error('the gate closed the connection without a whole answer');
  const status = Number(head[1]);
  const headers = new Map(
    head[2]!
      .split('\r\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  if (headers.has('transfer-encoding')) throw new Error('the gate answered in a transfer encoding the hook does not read');
  const bytes = response.subarray(headEnd + 4);
  const length = headers.has('content-length') ? Number(headers.get('content-length')) : bytes.length;
  if (!Number.isInteger(length) || bytes.length < length) throw new Error('the gate closed the connection before its whole answer');
  let value: unknown;
  try {
    value = JSON.parse(bytes.subarray(0, length).toString('utf8'));
  } catch {
    throw new Error(`the gate answered ${status} with no JSON`);
  }
  if (status === 200) return { value };
  const message = (value as { error?: { message?: unknown } } | null)?.error?.message;
  return { refused: status, message: typeof message === 'string' ? message : `HTTP ${status}` };
}

/**
 * Posts a JSON body to one of the gate's hook paths and waits (up to `timeoutMs` without a byte)
 * for its answer: over the gate's Unix socket when it has one, else over its loopback port. The
 * port is tried only when the socket took no byte, so a request is never sent twice.
 */
export async function postToGate(gate: RunningGateEndpoint, path: string, body: string, timeoutMs: number): Promise<GateReply> {
  if (gate.socketPath !== undefined) {
    try {
      return await exchange({ path: gate.socketPath }, gate, path, body, timeoutMs);
    } catch (error) {
      if (!(error instanceof NotConnectedError)) throw error;
    }
  }
  try {
    return await exchange({ host: '127.0.0.1', port: gate.port }, gate, path, body, timeoutMs);
  } catch (error) {
    throw error instanceof NotConnectedError ? new GateUnreachableError(`no gate answers at 127.0.0.1:${gate.port} (${error.message})`) : error;
  }
}
