import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

/** The console's CSP (the same as the desktop window's), with the WebSocket back to this gate. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Serves the built renderer; refuses anything outside its folder. */
export function serveStatic(root: string, request: IncomingMessage, response: ServerResponse): void {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://gate').pathname);
  } catch {
    // a malformed %-escape or target must not throw out of the request handler (it would end the gate)
    response.writeHead(400, { 'content-type': 'text/plain' }).end('Bad request path\n');
    return;
  }
  const relative = pathname === '/' ? 'index.html' : pathname.slice(1);
  const file = normalize(join(root, relative));
  if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
    if (!existsSync(join(root, 'index.html'))) {
      response.writeHead(503, { 'content-type': 'text/plain' }).end('The console is not built: run `npm run build`.\n');
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
    return;
  }
  response.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'content-security-policy': CONSOLE_CSP,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': file.endsWith('.html') ? 'no-store' : 'public, max-age=3600',
  });
  if (request.method === 'HEAD') response.end();
  else createReadStream(file).pipe(response);
}
