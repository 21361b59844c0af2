/**
 * `toolgate serve` with `otlpEndpoint` in settings.json, as a person runs it: the banner says where
 * spans go, a call made with `toolgate call` reaches a local collector as its span once it ends, and
 * a collector that refuses is logged once on stderr while calls go on.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attributeMap, otlpProblems } from '../audit/otlpShape';
import { runCli, spawnServe, type ServeProcess } from './cliProcesses';
import { makeTempDirs, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

let dirs: TempDirs | undefined;
let serve: ServeProcess | undefined;
let server: Server | undefined;

afterEach(async () => {
  await serve?.stop();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  dirs?.remove();
  dirs = serve = server = undefined;
});

/** A local collector answering `status`; returns its URL and the POSTs it got. */
async function collector(status: number): Promise<{ url: string; posts: Array<{ headers: IncomingHttpHeaders; body: string }> }> {
  const posts: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += String(chunk)));
    request.on('end', () => {
      posts.push({ headers: request.headers, body });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, posts };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('toolgate serve with otlpEndpoint', () => {
  it('sends each ended call as a span to the collector, with the configured headers', async () => {
    const sink = await collector(200);
    dirs = makeTempDirs();
    writeFileSync(join(dirs.home, 'settings.json'), JSON.stringify({ otlpEndpoint: sink.url, otlpHeaders: { 'x-api-key': 'k-42' } }));
    serve = await spawnServe(dirs);
    expect(serve.stdout()).toContain(`otlp       each ended call is sent as a span to ${sink.url}`);
    const call = await runCli(['call', 'echo', '{"text":"hello otlp"}'], dirs.home);
    expect(call.code).toBe(0);
    await until(() => sink.posts.length > 0, 'the span');
    const request = JSON.parse(sink.posts[0]!.body);
    expect(otlpProblems(request)).toEqual([]);
    const [span] = request.resourceSpans[0].scopeSpans[0].spans;
    expect(span.name).toBe('execute_tool echo');
    expect(attributeMap(span.attributes)).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'toolgate.outcome': 'completed', 'toolgate.source': 'mcp' });
    expect(sink.posts[0]!.headers['x-api-key']).toBe('k-42');
    expect(sink.posts[0]!.body).not.toContain('hello otlp');
  });

  it('logs a refusing collector once on stderr while calls keep working', async () => {
    const sink = await collector(500);
    dirs = makeTempDirs();
    writeFileSync(join(dirs.home, 'settings.json'), JSON.stringify({ otlpEndpoint: sink.url }));
    serve = await spawnServe(dirs);
    for (let i = 0; i < 2; i++) {
      expect((await runCli(['call', 'echo', `{"text":"call ${i}"}`], dirs.home)).code).toBe(0);
      await until(() => sink.posts.length > i, `POST ${i + 1}`);
    }
    await until(() => serve!.stderr().includes('OTLP export'), 'the log line');
    expect(serve.stderr().match(/OTLP export to .* failed/g)).toEqual([`OTLP export to ${sink.url} failed`]);
    expect(serve.stderr()).toContain('(it answered HTTP 500); calls go on');
  });
});
