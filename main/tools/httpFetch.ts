import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { NodeHtmlMarkdown } from 'node-html-markdown';
import { z } from 'zod';
import type { Preview } from '../../shared/approval';
import { GateError } from '../../shared/errors';
import { defineTool } from '../registry/defineTool';
import { canonicalHost, isPrivateAddress, needsExactGrant, parseFetchUrl } from './netAccess';

const MIB = 1024 * 1024;
/** Body bytes read when the call names no maxBytes. */
const DEFAULT_MAX_BYTES = MIB;
/** The most body bytes one call may ask for. */
const MAX_MAX_BYTES = 10 * MIB;
/** Redirects followed before the call fails. */
const MAX_REDIRECTS = 5;
/** One request's deadline (the tool's own deadline, 30 s, covers the whole chain). */
const REQUEST_TIMEOUT_MS = 20_000;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** What one fetch returns. */
export interface FetchResult {
  status: number;
  url: string;
  contentType: string;
  content: string;
  bytes: number;
  truncated: boolean;
  location?: string;
}

/**
 * Fetches one http(s) URL with GET or HEAD and returns its body as text (HTML as Markdown).
 *
 * ELEVATED, so a person approves each request by default: the URL itself carries data out (an agent
 * can put anything it read into a path or query string), and the domain grants say only where it
 * may go, not what it may say there. A deployment that trusts its grants can allow the tool by policy.
 *
 * The gate admits the call only when a `net:read:<host>` grant covers the URL's host (urlArguments,
 * see checkCapabilities). Here, right before connecting, every address a name resolves to must be
 * public: a loopback or private address is reached only through a URL naming it literally (or
 * `localhost`), which the gate admits only under a grant naming it exactly. Redirects are followed
 * on the same host only, at most five, each re-checked; one to another host is returned, not
 * followed, so the agent's next call goes through the gate (and the person) again.
 */
export const httpFetchTool = defineTool({
  name: 'http_fetch',
  version: '1.0.0',
  description:
    'Fetches an http(s) URL (GET or HEAD) from a domain this gate grants and returns the response: HTML as Markdown, ' +
    'other text as is, nothing for binary types. Redirects on the same host are followed (at most 5); a redirect ' +
    'to another host is returned with its location, to fetch with a new call. A person approves each request.',
  tier: 'ELEVATED',
  sideEffects: ['NetRead'],
  determinism: 'NonDeterministic',
  capabilities: ['net:read'],
  urlArguments: ['url'],
  supportsDryRun: true,
  bounds: {
    timeoutMs: 30_000,
    maxOutputBytes: 16 * MIB,
    network: { maxRequests: 1 + MAX_REDIRECTS, maxBytes: MAX_MAX_BYTES },
  },
  input: z
    .object({
      url: z.string().min(1).max(8192).describe('The http: or https: URL to fetch'),
      method: z.enum(['GET', 'HEAD']).default('GET').describe('GET (the default) or HEAD (headers only)'),
      maxBytes: z
        .number()
        .int()
        .positive()
        .max(MAX_MAX_BYTES)
        .default(DEFAULT_MAX_BYTES)
        .describe(`Body bytes to read before stopping (default ${DEFAULT_MAX_BYTES}, at most ${MAX_MAX_BYTES})`),
    })
    .strict(),
  output: z.object({
    status: z.number().int().describe('HTTP status of the last response'),
    url: z.string().describe('The URL the content came from, after redirects'),
    contentType: z.string().describe('The Content-Type header ("" when absent)'),
    content: z.string().describe('The body as text; HTML converted to Markdown; "" for HEAD and binary types'),
    bytes: z.number().int().describe('Body bytes read (after decompression)'),
    truncated: z.boolean().describe('Whether the body was cut at maxBytes'),
    location: z.string().optional().describe('Where a redirect to another host points (not followed)'),
  }),
  execute: async (input, context): Promise<Preview | FetchResult> => {
    const url = parseFetchUrl(input.url);
    if (context.dryRun) return { kind: 'request', method: input.method, url: url.href, host: url.hostname };
    return fetchFollowingRedirects(url, input.method, input.maxBytes);
  },
});

async function fetchFollowingRedirects(start: URL, method: 'GET' | 'HEAD', maxBytes: number): Promise<FetchResult> {
  const host = canonicalHost(start.hostname);
  // The gate asked for a grant naming a private literal or localhost; a name must resolve to public addresses.
  const allowPrivate = needsExactGrant(host);
  let url = start;
  for (let redirects = 0; ; redirects++) {
    const response = await openResponse(url, method, allowPrivate);
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(response.statusCode ?? 0) || location === undefined) {
      return readResult(response, url, method, maxBytes);
    }
    response.destroy();
    const next = redirectTarget(url, location);
    if (canonicalHost(next.hostname) !== host) {
      return {
        status: response.statusCode!,
        url: url.href,
        contentType: response.headers['content-type'] ?? '',
        content: `Redirect to another host, not followed: ${next.href}. Fetch it with a new call if this gate grants ${next.hostname}.`,
        bytes: 0,
        truncated: false,
        location: next.href,
      };
    }
    if (redirects === MAX_REDIRECTS) {
      throw new GateError('EQUOTA', `${start.href} redirected more than ${MAX_REDIRECTS} times; the last hop pointed to ${next.href}`);
    }
    if (response.statusCode === 303 && method !== 'HEAD') method = 'GET';
    url = next;
  }
}

function redirectTarget(from: URL, location: string): URL {
  let resolved: string;
  try {
    resolved = new URL(location, from).href;
  } catch {
    throw new GateError('ERUNTIME', `${from.href} redirected to ${JSON.stringify(location)}, which is no URL`);
  }
  return parseFetchUrl(resolved);
}

function openResponse(url: URL, method: 'GET' | 'HEAD', allowPrivate: boolean): Promise<IncomingMessage> {
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(literal) !== 0 && isPrivateAddress(literal)) {
    return Promise.reject(privateAddressError(url.hostname, literal));
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method,
      lookup: guardedLookup(allowPrivate),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      headers: {
        'user-agent': 'toolgate-http-fetch/1.0',
        accept: 'text/html, text/plain;q=0.9, */*;q=0.5',
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    outgoing.on('response', resolve);
    outgoing.on('error', (error) => reject(requestError(url, error)));
    outgoing.end();
  });
}

/**
 * A `lookup` for http.request that refuses a name resolving to any loopback or private address:
 * checked on the very addresses the socket will use, so a DNS answer that changes between the
 * gate's check and the connection (rebinding) cannot slip through.
 */
export function guardedLookup(allowPrivate: boolean, resolve: typeof dnsLookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 4);
      const refused = allowPrivate ? undefined : addresses.find((entry) => isPrivateAddress(entry.address));
      if (refused) return callback(privateAddressError(hostname, refused.address), '', 4);
      if (addresses.length === 0) return callback(new GateError('ERUNTIME', `${hostname} resolves to no address`), '', 4);
      if (options.all) return (callback as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

function privateAddressError(host: string, address: string): GateError {
  return new GateError(
    'EPERMISSION',
    `${host} resolves to ${address}, a loopback or private address; http_fetch reaches those only through a URL ` +
      `naming the address itself, granted exactly (--grant net:read:${address})`,
    { host, address },
  );
}

function requestError(url: URL, error: Error): Error {
  if (error instanceof GateError || (error as { code?: unknown }).code === 'EPERMISSION') return error;
  if (error.name === 'TimeoutError' || error.name === 'AbortError') {
    return new GateError('ETIMEOUT', `${url.href} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s`);
  }
  return new GateError('ERUNTIME', `fetching ${url.href} failed: ${error.message}`);
}

async function readResult(response: IncomingMessage, url: URL, method: 'GET' | 'HEAD', maxBytes: number): Promise<FetchResult> {
  const contentType = response.headers['content-type'] ?? '';
  const base = { status: response.statusCode ?? 0, url: url.href, contentType };
  if (method === 'HEAD') {
    response.destroy();
    return { ...base, content: '', bytes: 0, truncated: false };
  }
  const { body, truncated } = await readCapped(decoded(response), maxBytes).finally(() => response.destroy());
  return { ...base, content: bodyText(body, contentType), bytes: body.length, truncated };
}

function decoded(response: IncomingMessage): Readable {
  const encoding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return response.pipe(createGunzip());
  if (encoding === 'deflate') return response.pipe(createInflate());
  if (encoding === 'br') return response.pipe(createBrotliDecompress());
  return response;
}

/** Reads at most maxBytes of a stream; one byte more says there was more. */
async function readCapped(stream: Readable, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      const buffer = chunk as Buffer;
      if (total + buffer.length > maxBytes) {
        chunks.push(buffer.subarray(0, maxBytes - total));
        return { body: Buffer.concat(chunks), truncated: true };
      }
      chunks.push(buffer);
      total += buffer.length;
    }
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'AbortError' || name === 'TimeoutError') {
      throw new GateError('ETIMEOUT', `the response body did not arrive within ${REQUEST_TIMEOUT_MS / 1000} s`);
    }
    throw new GateError('ERUNTIME', `the response body could not be read: ${(error as Error).message}`);
  } finally {
    stream.destroy();
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

/** The body as text: HTML as Markdown, text types decoded by their charset, binary types as ''. */
export function bodyText(body: Buffer, contentType: string): string {
  const [type = '', ...parameters] = contentType.toLowerCase().split(';').map((part) => part.trim());
  const charset = parameters.find((parameter) => parameter.startsWith('charset='))?.slice(8).replace(/"/g, '');
  const isHtml = type === 'text/html' || type === 'application/xhtml+xml';
  const isText = isHtml || type.startsWith('text/') || /[/+](json|xml|javascript|ecmascript|csv|yaml|x-www-form-urlencoded)$/.test(type);
  // Without a type, text is what has no NUL byte near its start.
  if (!isText && !(type === '' && !body.subarray(0, 1024).includes(0))) return '';
  const text = decodeText(body, charset);
  return isHtml ? NodeHtmlMarkdown.translate(text) : text;
}

function decodeText(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
