/**
 * A POST's SSE answer packed into one write: on a real loopback server, what the client reads is
 * byte for byte what the server wrote, whether the answer is ready at once or comes much later
 * (then the headers go out first, so the client knows its call is being served), and a client
 * that leaves while the headers are held costs nothing.
 */
import { createServer, request as httpRequest, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { coalesceAnswerWrites, HEADER_HOLD_MS } from '../../main/mcp/coalescedAnswer';
import { waitUntil } from '../fixtures/processes';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Serves each request with `answer`, after coalesceAnswerWrites; resolves with the port. */
async function serve(answer: (response: ServerResponse) => void): Promise<number> {
  server = createServer((_request, response) => {
    coalesceAnswerWrites(response);
    answer(response);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server!.address() as AddressInfo).port;
}

/** Opens the SSE stream the way the SDK's adapter does: headers flushed at once, events later. */
function openStream(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.flushHeaders();
}

const EVENT = 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}\n\n';

/** POSTs and reads the whole answer. */
function post(port: number): Promise<{ status: number; contentType: string; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/mcp' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (text: string) => (body += text));
      response.on('end', () => resolve({ status: response.statusCode!, contentType: String(response.headers['content-type']), body }));
    });
    request.on('error', reject);
    request.end('{}');
  });
}

describe('coalesceAnswerWrites', () => {
  it('an answer ready at once reaches the client whole and unchanged', async () => {
    const port = await serve((response) => {
      openStream(response);
      queueMicrotask(() => {
        response.write(EVENT);
        response.end();
      });
    });
    const answer = await post(port);
    expect(answer).toMatchObject({ status: 200, contentType: 'text/event-stream', body: EVENT });
  });

  it('an answer that takes long sends its headers first, then its events as they come', async () => {
    let headersSeen = false;
    const port = await serve((response) => {
      openStream(response);
      // A call waiting for a person: its progress event and result come only once the client has
      // the headers, which the hold lets go of by itself.
      void waitUntil(() => headersSeen, 'the client to see the headers').then(
        () => {
          response.write(EVENT);
          setTimeout(() => response.end(EVENT), 20);
        },
        () => response.end(),
      );
    });
    const body = new Promise<string>((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/mcp' }, (response) => {
        headersSeen = true;
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve(text));
      });
      request.on('error', reject);
      request.end('{}');
    });
    // Headers held until the first event would never come: nothing is written before they arrive.
    await waitUntil(() => headersSeen, 'the headers, sent ahead of any event');
    expect(await body).toBe(EVENT + EVENT);
  });

  it('a client that leaves while the headers are held leaves nothing behind to fire', async () => {
    let closed!: () => void;
    const responseClosed = new Promise<void>((resolve) => (closed = resolve));
    let failure: unknown;
    let served!: () => void;
    const holding = new Promise<void>((resolve) => (served = resolve));
    const port = await serve((response) => {
      openStream(response);
      response.once('close', closed);
      response.on('error', (error) => (failure = error));
      served();
    });
    const request = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/mcp' });
    request.on('error', () => {});
    request.end('{}');
    // The server has just opened the stream: its headers are held.
    await holding;
    request.destroy();
    await responseClosed;
    await new Promise((resolve) => setTimeout(resolve, HEADER_HOLD_MS * 2));
    expect(failure).toBeUndefined();
  });
});
