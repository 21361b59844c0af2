/**
 * http_fetch stays where it was granted, through the official MCP client and a real gate: a grant
 * names a host and port, a redirect to another port on the same host is not followed, user info in a
 * URL is refused, and compression bombs (gzip, brotli, stacked gzip) are cut at maxBytes while they
 * stream, the tool process staying small.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { constants, createBrotliCompress, createGzip, gzipSync, type BrotliCompress, type Gzip } from 'node:zlib';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { connectMcp, makeTempDirs, nextApproval, readToken, textOf, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/** `total` zero bytes compressed while they stream: a bomb that is small on the wire. */
async function zeros(total: number, compressor: Gzip | BrotliCompress): Promise<Buffer> {
  const zero = Buffer.alloc(MIB);
  const source = Readable.from(
    (function* () {
      for (let sent = 0; sent < total; sent += MIB) yield zero;
    })(),
  );
  const chunks: Buffer[] = [];
  for await (const chunk of source.pipe(compressor)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A server on 127.0.0.1 and a free port that records the paths asked of it. */
async function listen(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<{ server: Server; port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(request.url ?? '');
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

let granted: Awaited<ReturnType<typeof listen>>;
let other: Awaited<ReturnType<typeof listen>>;
let dirs: TempDirs;
let gate: RunningGate;
let agent: Client;
const authorizations: Array<string | undefined> = [];

beforeAll(async () => {
  const gzipBomb = await zeros(GIB, createGzip({ level: 9 }));
  const brotliBomb = await zeros(GIB, createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }));
  const stackedBomb = gzipSync(gzipBomb, { level: 9 });
  other = await listen((_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('the other service'));
  granted = await listen((request, response) => {
    authorizations.push(request.headers.authorization);
    const send = (encoding: string, body: Buffer) =>
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': encoding, 'content-length': body.length }).end(body);
    switch (request.url) {
      case '/text':
        return response.writeHead(200, { 'content-type': 'text/plain' }).end('granted service');
      case '/to-other-port':
        return response.writeHead(302, { location: `http://127.0.0.1:${other.port}/secret` }).end();
      case '/to-https':
        return response.writeHead(301, { location: 'https://127.0.0.1/text' }).end();
      case '/gzip-bomb':
        return send('gzip', gzipBomb);
      case '/brotli-bomb':
        return send('br', brotliBomb);
      case '/stacked-bomb':
        return send('gzip, gzip', stackedBomb);
      default:
        return response.writeHead(404).end();
    }
  });
  dirs = makeTempDirs();
  gate = await startGate({
    home: dirs.home,
    workspace: dirs.workspace,
    port: 0,
    poolSize: 1,
    approvalTimeoutMs: WAIT_MS,
    grants: ['fs:read', `net:read:127.0.0.1:${granted.port}`],
  });
  agent = await connectMcp(gate.mcpUrl, readToken(dirs.home));
  // Every http_fetch call asks a person: this one approves whatever comes.
  gate.backend.subscribe('approvalRequested', (request) => {
    void gate.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
  });
});

afterAll(async () => {
  await agent?.close();
  await gate?.close();
  dirs?.remove();
  granted?.server.close();
  other?.server.close();
});

async function fetchAs(args: Record<string, unknown>): Promise<CallToolResult> {
  return (await agent.callTool({ name: 'http_fetch', arguments: args })) as CallToolResult;
}

function codeOf(result: CallToolResult): unknown {
  return result._meta?.['toolgate/errorCode'];
}

describe('http_fetch stays on the host and port it was granted', () => {
  it('reaches the granted port, and refuses the same host on another port naming the --grant flag', async () => {
    expect((await fetchAs({ url: `http://127.0.0.1:${granted.port}/text` })).structuredContent).toMatchObject({ content: 'granted service' });
    const refused = await fetchAs({ url: `http://127.0.0.1:${other.port}/secret` });
    expect(codeOf(refused)).toBe('EPERMISSION');
    expect(textOf(refused)).toContain(`may not reach 127.0.0.1 port ${other.port}`);
    expect(textOf(refused)).toContain(`--grant net:read:127.0.0.1:${other.port}`);
    expect(other.hits).toEqual([]);
  });

  it('does not follow a redirect to another port on the same host; it returns the location', async () => {
    const result = await fetchAs({ url: `http://127.0.0.1:${granted.port}/to-other-port` });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ status: 302, location: `http://127.0.0.1:${other.port}/secret`, bytes: 0 });
    expect(textOf(result)).toContain(`Redirect to another port (${other.port}, not ${granted.port}), not followed`);
    expect(other.hits).toEqual([]);
  });

  it('does not follow a redirect to https on the same host, which goes to port 443', async () => {
    const result = await fetchAs({ url: `http://127.0.0.1:${granted.port}/to-https` });
    expect(result.structuredContent).toMatchObject({ status: 301, location: 'https://127.0.0.1/text' });
    expect(textOf(result)).toContain(`Redirect to another port (443, not ${granted.port}), not followed`);
    expect(textOf(result)).toContain('net:read:127.0.0.1');
  });

  it('refuses a URL with user info, which would send credentials and mislead the reader', async () => {
    const before = granted.hits.length;
    for (const url of [`http://evil@127.0.0.1:${granted.port}/text`, `http://127.0.0.1:${granted.port}@example.com/text`]) {
      const result = await fetchAs({ url });
      expect(codeOf(result), url).toBe('EVALIDATION');
      expect(textOf(result), url).toContain('carries a user name or password before @');
    }
    expect(granted.hits.length).toBe(before);
    expect(authorizations.filter((header) => header !== undefined)).toEqual([]);
  });
});

describe('http_fetch cuts compression bombs while they stream', () => {
  for (const [path, label] of [
    ['/gzip-bomb', 'gzip: 1 GiB of zeros in 1 MiB'],
    ['/brotli-bomb', 'brotli: 1 GiB of zeros in 2 KiB'],
    ['/stacked-bomb', 'gzip, gzip: the same bomb compressed twice'],
  ] as const) {
    it(`${label} is cut at maxBytes, decompressed, with the tool process small`, async () => {
      const prompt = nextApproval(gate.backend);
      const result = await fetchAs({ url: `http://127.0.0.1:${granted.port}${path}`, maxBytes: 2 * MIB });
      await prompt;
      expect(result.isError, textOf(result).slice(0, 300)).toBe(false);
      const data = result.structuredContent as { bytes: number; rawBytes: number; truncated: boolean };
      expect(data.bytes).toBe(2 * MIB);
      expect(data.truncated).toBe(true);
      expect(data.rawBytes).toBeLessThan(2 * MIB);
      const completed = gate.gate.audit.forCall(result._meta?.['toolgate/callId'] as string).find((record) => record.kind === 'completed');
      const usage = (completed?.payload as { usage?: { peakMemoryMb: number } } | undefined)?.usage;
      // Where the gate can measure the tool process (a memory cgroup), it stayed far below the 1 GiB unpacked.
      if (usage) expect(usage.peakMemoryMb).toBeLessThan(256);
    });
  }

  it('the gate keeps serving afterwards', async () => {
    expect((await fetchAs({ url: `http://127.0.0.1:${granted.port}/text` })).structuredContent).toMatchObject({ content: 'granted service' });
  });
});
