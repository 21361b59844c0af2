/**
 * The request body reader on a real loopback server: a body in many chunks, one over the size limit,
 * one that is not JSON, and a client that leaves in the middle of its body. Each is answered or
 * given up on, and the server goes on serving.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, readJsonBody } from '../../main/server/httpBody';

/** What the server's reader made of each request, in order. */
let outcomes: Array<{ value: unknown } | { unreadable: string } | { failed: string }>;
let server: Server;
let port: number;
/** Settles when the next request has been read (or has failed). */
let nextOutcome: Promise<void>;
let outcomeSeen: () => void;

function expectOutcome(): void {
  nextOutcome = new Promise((resolve) => (outcomeSeen = resolve));
}

beforeEach(async () => {
  outcomes = [];
  expectOutcome();
  server = createServer((request, response) => {
    readJsonBody(request, response).then(
      (outcome) => {
        outcomes.push(outcome);
        if ('value' in outcome) response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(outcome.value));
        outcomeSeen();
      },
      (error: Error) => {
        outcomes.push({ failed: error.message });
        outcomeSeen();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** POSTs `chunks` one write at a time; resolves with the status and body (or the socket's error). */
function post(chunks: Buffer[]): Promise<{ status?: number; body: string; error?: string }> {
  return new Promise((resolve) => {
    // A connection of its own: a kept-alive one the server dropped after a refusal would fail the next request, not the server.
    const request = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/', agent: false, headers: { 'content-type': 'application/json' } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (text: string) => (body += text));
      response.on('end', () => resolve({ status: response.statusCode, body }));
      response.on('error', (error) => resolve({ status: response.statusCode, body, error: error.message }));
    });
    request.on('error', (error) => resolve({ body: '', error: error.message }));
    const writeNext = (index: number) => {
      if (index === chunks.length) {
        request.end();
        return;
      }
      request.write(chunks[index], () => setImmediate(() => writeNext(index + 1)));
    };
    writeNext(0);
  });
}

describe('readJsonBody', () => {
  it('reads a body sent in many chunks whole', async () => {
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'é'.repeat(5000) } } });
    const bytes = Buffer.from(text);
    // Cut inside a two-byte character too: the reader must join bytes, not decoded pieces.
    const chunks = [bytes.subarray(0, 7), bytes.subarray(7, 4001), bytes.subarray(4001)];
    const answer = await post(chunks);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual(JSON.parse(text));
  });

  it('refuses a body over the size limit with 413, and the server keeps serving', async () => {
    const piece = Buffer.alloc(1024 * 1024, 0x20);
    const answer = await post(Array.from({ length: MAX_BODY_BYTES / piece.length + 1 }, () => piece));
    await nextOutcome;
    expect(outcomes[0]).toEqual({ unreadable: `the request body is over ${MAX_BODY_BYTES} bytes` });
    // The reader stops reading and drops the connection: the client sees the 413 or a reset.
    if (answer.status !== undefined) expect(answer.status).toBe(413);
    expectOutcome();
    expect((await post([Buffer.from('{"still":"serving"}')])).body).toBe('{"still":"serving"}');
  });

  it('answers a body that is not JSON with a JSON-RPC parse error', async () => {
    const answer = await post([Buffer.from('{"jsonrpc": "2.0", "id": ')]);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('gives up on a client that leaves in the middle of its body, and the server keeps serving', async () => {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const arrived = new Promise((resolve) => server.once('request', resolve));
    socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"half": "a bo');
    // The server is reading the request before the client leaves.
    await arrived;
    socket.destroy();
    await nextOutcome;
    expect(outcomes[0]).toHaveProperty('failed');
    expectOutcome();
    expect((await post([Buffer.from('[1,2,3]')])).body).toBe('[1,2,3]');
  });
});
