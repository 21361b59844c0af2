import { createServer, type Server } from 'node:http';
import { getEventListeners } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATE_REFUSAL_MARK } from '../../main/upstream/messageBound';
import { fetchWithOwnSignals } from '../../main/upstream/requestSignals';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/empty') return void response.writeHead(204, { 'mcp-session-id': 's-1' }).end();
    if (request.url === '/stream') {
      // An SSE answer that stays open after its first event, as a long tool call's does.
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: first\n\n');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-2' }).end(JSON.stringify({ url: request.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('fetch with a signal of its own per request', () => {
  it('leaves no listener on the long-lived signal once each answer has been read, however many requests it served', async () => {
    const transport = new AbortController();
    const fetchOwn = fetchWithOwnSignals();
    for (let i = 0; i < 300; i++) {
      const response = await fetchOwn(`${base}/call/${i}`, { method: 'POST', body: '{}', signal: transport.signal });
      expect(listeners(transport.signal)).toBe(1);
      expect(await response.json()).toEqual({ url: `/call/${i}` });
      expect(listeners(transport.signal)).toBe(0);
    }
  });

  it('keeps the status and headers, for an answer without a body too', async () => {
    const transport = new AbortController();
    const fetchOwn = fetchWithOwnSignals();
    const empty = await fetchOwn(`${base}/empty`, { signal: transport.signal });
    expect([empty.status, empty.headers.get('mcp-session-id')]).toEqual([204, 's-1']);
    const full = await fetchOwn(`${base}/x`, { signal: transport.signal });
    expect([full.status, full.ok, full.headers.get('mcp-session-id'), full.headers.get('content-type')]).toEqual([200, true, 's-2', 'application/json']);
    await full.text();
    expect(listeners(transport.signal)).toBe(0);
  });

  it('aborts a streamed answer in flight when the long-lived signal is aborted (the transport closing)', async () => {
    const transport = new AbortController();
    const response = await fetchWithOwnSignals()(`${base}/stream`, { signal: transport.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    transport.abort(new Error('transport closed'));
    await expect(reader.read()).rejects.toThrow();
    expect(listeners(transport.signal)).toBe(0);
  });

  it('unlinks a request whose body its reader cancelled, or that never got an answer', async () => {
    const transport = new AbortController();
    const fetchOwn = fetchWithOwnSignals();
    const response = await fetchOwn(`${base}/stream`, { signal: transport.signal });
    await response.body!.cancel();
    expect(listeners(transport.signal)).toBe(0);
    // A port nothing listens on: the request fails before any answer.
    await expect(fetchOwn('http://127.0.0.1:1/mcp', { signal: transport.signal })).rejects.toThrow();
    expect(listeners(transport.signal)).toBe(0);
    // Already aborted: refused at once, nothing left behind.
    transport.abort();
    await expect(fetchOwn(`${base}/x`, { signal: transport.signal })).rejects.toThrow();
    expect(listeners(transport.signal)).toBe(0);
  });
});

/** A fetch that answers with `parts` (strings, sent as they are) of the given content type. */
function answering(contentType: string, parts: string[]): typeof fetch {
  return async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
          controller.close();
        },
      }),
      { status: 200, headers: { 'content-type': contentType } },
    );
}

describe('fetch with a bound on one message', () => {
  const bound = { maxMessageBytes: 100 };
  const call = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x' } });

  it('lets a stream of many events through, each under the bound, whatever ends their lines (LF, CRLF, CR), cut anywhere', async () => {
    const event = (n: number, end: string) => `event: message${end}data: ${'y'.repeat(60)}${n}${end}${end}`;
    const stream = [0, 1, 2, 3, 4, 5].map((n) => event(n, ['\n', '\r\n', '\r'][n % 3]!)).join('');
    // Pieces of 7 bytes: a CRLF and a blank line are cut between them too.
    const parts = stream.match(/[\s\S]{1,7}/g)!;
    const response = await fetchWithOwnSignals(answering('text/event-stream', parts), bound)('http://gate.test/mcp', { method: 'POST', body: call });
    expect(await response.text()).toBe(stream);
  });

  it('answers the requests of a stream whose event passes the bound with the refusal, and reads no further', async () => {
    const parts = ['event: message\ndata: ', 'z'.repeat(90), 'z'.repeat(90), 'never read\n\n'];
    const response = await fetchWithOwnSignals(answering('text/event-stream; charset=utf-8', parts), bound)('http://gate.test/mcp', { method: 'POST', body: call });
    const text = await response.text();
    expect(text).not.toContain('never read');
    const answer = /data: (\{.*\})\n\n$/.exec(text)?.[1];
    expect(JSON.parse(answer!)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32603, message: "the server's message exceeded maximum size of 100 bytes; the gate stopped reading it", data: { gateRefusal: GATE_REFUSAL_MARK } },
    });
  });

  it('fails the read of a JSON answer past the bound, and of a stream that answers no request', async () => {
    const json = await fetchWithOwnSignals(answering('application/json', ['{"a":"', 'q'.repeat(120), '"}']), bound)('http://gate.test/mcp', { method: 'POST', body: call });
    await expect(json.json()).rejects.toThrow(/exceeded maximum size of 100 bytes/);
    const listening = await fetchWithOwnSignals(answering('text/event-stream', ['data: ', 'w'.repeat(120)]), bound)('http://gate.test/mcp', { method: 'GET' });
    await expect(listening.text()).rejects.toThrow(/exceeded maximum size of 100 bytes/);
  });
});
