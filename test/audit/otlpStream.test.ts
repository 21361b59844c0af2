/**
 * Streaming ended calls as OTLP spans to a collector: a tiny HTTP server here records what the
 * gate POSTs. Spans arrive batched and valid, with the configured headers; a collector that is down
 * or hangs neither fails nor slows a call, and its failure is logged once, not per call.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { OtlpStreamer } from '../../main/audit/otlpStream';
import { startGate } from '../../main/gate/startGate';
import { callIdOf, connectMcp, makeTempDirs, readToken, startTestGate, type TestGate } from '../integration/helpers';
import { attributeMap, otlpProblems } from './otlpShape';
import { WAIT_MS, waitUntil } from '../fixtures/processes';

interface Collector {
  url: string;
  posts: Array<{ headers: IncomingHttpHeaders; body: string }>;
  /** A hanging collector answers the POSTs it holds, and every one after. */
  release(): void;
  close(): Promise<void>;
}

/** A local OTLP/HTTP "collector" answering every POST with `status` (or never, when `hang`, until released). */
async function collector(options: { status?: number; hang?: boolean } = {}): Promise<Collector> {
  const posts: Collector['posts'] = [];
  let hang = options.hang === true;
  const held: Array<() => void> = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += String(chunk)));
    request.on('end', () => {
      posts.push({ headers: request.headers, body });
      const answer = () => void response.writeHead(options.status ?? 200, { 'content-type': 'application/json' }).end('{}');
      if (hang) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    posts,
    release: () => {
      hang = false;
      for (const answer of held.splice(0)) answer();
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

let gate: TestGate | undefined;
let client: Client | undefined;
let sink: Collector | undefined;
let streamer: OtlpStreamer | undefined;

afterEach(async () => {
  await streamer?.close();
  await client?.close();
  await gate?.close();
  await sink?.close();
  gate = client = sink = streamer = undefined;
});

async function echoCalls(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(callIdOf(await client!.callTool({ name: 'echo', arguments: { text: `hello ${i}` } })));
  return ids;
}

describe('OTLP streaming', () => {
  it('POSTs each ended call as a valid span, in batches, with the configured headers and no content', async () => {
    sink = await collector();
    gate = await startTestGate();
    // A POST is given WAIT_MS, not the 3 s default: the collector answers at once, however busy the machine.
    streamer = new OtlpStreamer(gate.running.gate.audit, { endpoint: sink.url, headers: { 'x-api-key': 'k-123' }, batchMs: 50, maxBatch: 2, timeoutMs: WAIT_MS });
    client = await connectMcp(gate.running.mcpUrl, gate.token);
    const ids = await echoCalls(3);
    await streamer.close();
    expect(sink.posts.length).toBeGreaterThanOrEqual(2);
    const spans = sink.posts.flatMap((post) => {
      expect(post.headers['x-api-key']).toBe('k-123');
      expect(post.headers['content-type']).toBe('application/json');
      const request = JSON.parse(post.body);
      expect(otlpProblems(request)).toEqual([]);
      return request.resourceSpans[0].scopeSpans[0].spans;
    });
    expect(spans.map((span: { attributes: never }) => attributeMap(span.attributes)['gen_ai.tool.call.id'])).toEqual(ids);
    expect(attributeMap(spans[0].attributes)).toMatchObject({ 'gen_ai.tool.name': 'echo', 'toolgate.outcome': 'completed' });
    expect(sink.posts.map((post) => post.body).join('')).not.toContain('hello');
    expect(streamer.counts()).toEqual({ sent: 3, failed: 0, dropped: 0 });
  });

  it('keeps calls working when the collector fails, counts the lost spans and logs the failure once', async () => {
    sink = await collector({ status: 503 });
    gate = await startTestGate();
    const logged: string[] = [];
    streamer = new OtlpStreamer(gate.running.gate.audit, { endpoint: sink.url, batchMs: 10, maxBatch: 1, timeoutMs: WAIT_MS, log: (message) => logged.push(message) });
    client = await connectMcp(gate.running.mcpUrl, gate.token);
    const ids = await echoCalls(3);
    expect(ids).toHaveLength(3);
    await streamer.close();
    expect(streamer.counts()).toEqual({ sent: 0, failed: 3, dropped: 0 });
    expect(logged).toEqual([`OTLP export to ${sink.url} failed (it answered HTTP 503); calls go on, their spans are counted as not sent until it works again`]);
  });

  it('does not wait for a collector that hangs: the call returns while the POST before it still hangs', async () => {
    sink = await collector({ hang: true });
    gate = await startTestGate();
    // A POST is given WAIT_MS: the call below returns long before, however busy the machine.
    streamer = new OtlpStreamer(gate.running.gate.audit, { endpoint: sink.url, batchMs: 0, timeoutMs: WAIT_MS });
    client = await connectMcp(gate.running.mcpUrl, gate.token);
    await echoCalls(1);
    await waitUntil(() => sink!.posts.length === 1, "the first span's POST to reach the collector");
    // The first span's POST now hangs; the next call does not wait for it.
    await echoCalls(1);
    // The call came back while the first POST still hung: it had neither been answered nor given up on.
    expect(streamer.counts()).toMatchObject({ sent: 0, failed: 0 });
    expect(sink.posts).toHaveLength(1);
    sink.release();
    await streamer.close();
    expect(streamer.counts()).toEqual({ sent: 2, failed: 0, dropped: 0 });
  });

  it('gives up a POST the collector never answers after its timeout, counts its spans as not sent and logs the failure once', async () => {
    sink = await collector({ hang: true });
    gate = await startTestGate();
    const logged: string[] = [];
    streamer = new OtlpStreamer(gate.running.gate.audit, { endpoint: sink.url, batchMs: 0, timeoutMs: 300, log: (message) => logged.push(message) });
    client = await connectMcp(gate.running.mcpUrl, gate.token);
    await echoCalls(2);
    await streamer.close();
    expect(streamer.counts()).toEqual({ sent: 0, failed: 2, dropped: 0 });
    expect(logged).toEqual([`OTLP export to ${sink.url} failed (it did not answer within 300 ms); calls go on, their spans are counted as not sent until it works again`]);
  });

  it('is started by the gate from its otlp option (settings otlpEndpoint) and sends what is left when the gate closes', async () => {
    sink = await collector();
    const dirs = makeTempDirs();
    const running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, poolSize: 1, otlp: { endpoint: sink.url, headers: { authorization: 'Bearer collector' } } });
    try {
      client = await connectMcp(running.mcpUrl, readToken(dirs.home));
      const id = callIdOf(await client.callTool({ name: 'echo', arguments: { text: 'x' } }));
      await client.close();
      client = undefined;
      await running.close();
      const spans = sink.posts.flatMap((post) => JSON.parse(post.body).resourceSpans[0].scopeSpans[0].spans);
      expect(spans.map((span: { attributes: never }) => attributeMap(span.attributes)['gen_ai.tool.call.id'])).toEqual([id]);
      expect(sink.posts[0]!.headers.authorization).toBe('Bearer collector');
    } finally {
      await running.close();
      dirs.remove();
    }
  });

  it("does not hold the gate's shutdown for a collector that is down: one more POST, the rest counted", async () => {
    sink = await collector({ hang: true });
    gate = await startTestGate();
    // The first POST hangs past all four calls (300 ms was less than four calls take on a loaded
    // machine, and a second POST went out before the close): the close gives up after it alone.
    streamer = new OtlpStreamer(gate.running.gate.audit, { endpoint: sink.url, batchMs: 60_000, maxBatch: 1, timeoutMs: 5_000 });
    client = await connectMcp(gate.running.mcpUrl, gate.token);
    await echoCalls(4);
    await streamer.close();
    // Closed after one POST gave up: the other three spans were counted, not each sent and waited for.
    expect(sink.posts).toHaveLength(1);
    expect(streamer.counts()).toEqual({ sent: 0, failed: 4, dropped: 0 });
  });
});
