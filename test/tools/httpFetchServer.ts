import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { isPrivateAddress, needsExactGrant } from '../../main/tools/netAccess';

/**
 * This machine's name when it resolves only to private addresses (it often does, via /etc/hosts),
 * else undefined: a real name to test the resolved-address guard with.
 */
export async function privateHostName(): Promise<string | undefined> {
  const name = hostname().toLowerCase();
  const addresses = await lookup(name, { all: true }).catch(() => []);
  if (needsExactGrant(name) || addresses.length === 0 || !addresses.every((entry) => isPrivateAddress(entry.address))) return undefined;
  return name;
}

/** A local HTTP server for the http_fetch tests, on 127.0.0.1 and a free port. */
export interface TestServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  /** Paths requested so far, with their methods ("GET /text"). */
  requests: string[];
  close(): Promise<void>;
}

export const HTML_PAGE =
  '<html><head><title>Page</title><script>steal()</script><style>p { color: red }</style></head>' +
  '<body><h1>Title</h1><p>Some <b>bold</b> text and a <a href="/next">link</a>.</p><ul><li>one</li><li>two</li></ul></body></html>';

/**
 * Routes: /text, /html, /big (5000 × "x"), /gzip, /binary, /r/N (a chain of N same-host
 * redirects ending at "landed"), /away (a redirect to localhost, another host), /303 (POST-style
 * see-other to /text), /trickle (a byte every 100 ms, never ending), /silent (no headers ever),
 * /stall-gzip (half a gzip body, then nothing), /nested (100,000 nested divs), /wide (600 KiB of paragraphs),
 * /other-port (a redirect to the next port on the same host), /gzip-gzip and /br-deflate (stacked codings),
 * /empty-members (11 MiB of empty gzip members), /gzip-bomb (16 MiB of A in 16 KB), /compress (a coding nobody decodes), /four-layers (gzip four times).
 */
export async function startTestServer(): Promise<TestServer> {
  const requests: string[] = [];
  const emptyMember = gzipSync('');
  const gzipBomb = gzipSync(Buffer.alloc(16 * 1024 * 1024, 0x41), { level: 9 });
  let port = 0;
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '/';
    requests.push(`${request.method} ${path}`);
    const chain = /^\/r\/(\d+)$/.exec(path);
    if (chain) {
      const left = Number(chain[1]);
      if (left === 0) return send('text/plain; charset=utf-8', 'landed');
      response.writeHead(302, { location: `/r/${left - 1}` }).end();
      return;
    }
    switch (path) {
      case '/text':
        return send('text/plain; charset=utf-8', 'hello from the test server\n');
      case '/html':
        return send('text/html; charset=utf-8', HTML_PAGE);
      case '/big':
        return send('text/plain', 'x'.repeat(5000));
      case '/gzip':
        response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync('unzipped text'));
        return;
      case '/binary':
        return send('image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
      case '/away':
        response.writeHead(302, { location: `http://localhost:${port}/text` }).end();
        return;
      case '/303':
        response.writeHead(303, { location: '/text' }).end();
        return;
      case '/trickle': {
        response.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => response.write('x'), 100);
        response.on('close', () => clearInterval(timer));
        return;
      }
      case '/silent':
        return;
      case '/stall-gzip': {
        const zipped = gzipSync('x'.repeat(100_000));
        response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        response.write(zipped.subarray(0, zipped.length >> 1));
        return;
      }
      case '/other-port':
        response.writeHead(302, { location: `http://127.0.0.1:${port + 1}/text` }).end();
        return;
      case '/gzip-gzip':
        return encoded('gzip, gzip', gzipSync(gzipSync('twice unzipped')));
      case '/br-deflate':
        return encoded('deflate, br', brotliCompressSync(deflateSync('inflated and unbrotlied')));
      case '/empty-members':
        // Thousands of empty gzip members: many bytes on the wire, nothing decompressed.
        return encoded('gzip', Buffer.concat(new Array<Buffer>(Math.ceil((11 * 1024 * 1024) / emptyMember.length)).fill(emptyMember)));
      case '/gzip-bomb':
        return encoded('gzip', gzipBomb);
      case '/compress':
        return encoded('compress', Buffer.from('LZW bytes'));
      case '/four-layers':
        return encoded('gzip, gzip, gzip, gzip', gzipSync(gzipSync(gzipSync(gzipSync('deep')))));
      case '/nested':
        return send('text/html', `${'<div>'.repeat(100_000)}deep &amp; down${'</div>'.repeat(100_000)}`);
      case '/wide':
        return send('text/html', `<html><body>${'<p>Some <b>bold</b> text and a <a href="/x">link</a>.</p>\n'.repeat(10_000)}</body></html>`);
      default:
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
    }
    function encoded(encoding: string, body: Buffer) {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': encoding, 'content-length': body.length }).end(body);
    }
    function send(type: string, body: string | Buffer) {
      response.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      response.end(request.method === 'HEAD' ? undefined : body);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () => {
      closed ??= new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}
