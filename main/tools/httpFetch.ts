import type { LookupAddress } from 'node:dns';
import type { IncomingMessage } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import { z } from 'zod';
import type { Preview } from '../../shared/approval';
import { GateError } from '../../shared/errors';
import { defineTool } from '../registry/defineTool';
import { htmlContent } from './htmlText';
import { lazyModule } from './lazyModule';
import { readDecoded } from './fetchBody';
import { canonicalHost, effectivePort, grantTarget, isPrivateAddress, needsExactGrant, parseFetchUrl } from './netAccess';

// Loaded at the first fetch: most tool processes never fetch, and these cost each one about 40 ms of CPU at its start.
const http = lazyModule<typeof import('node:http')>('node:http');
const https = lazyModule<typeof import('node:https')>('node:https');
const dns = lazyModule<typeof import('node:dns')>('node:dns');

const MIB = 1024 * 1024;
/** Body bytes read when the call names no maxBytes. */
const DEFAULT_MAX_BYTES = MIB;
/** The most body bytes one call may ask for. */
const MAX_MAX_BYTES = 10 * MIB;
/** Redirects followed before the call fails. */
const MAX_REDIRECTS = 5;
/**
 * One deadline over the whole fetch (connecting, headers, body, every redirect), well below the
 * tool's 30 s timeoutMs so the call ends in its own ETIMEOUT and the gate never has to kill it.
 */
const FETCH_DEADLINE_MS = 20_000;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** What one fetch returns. */
export interface FetchResult {
  status: number;
  url: string;
  contentType: string;
  content: string;
  bytes: number;
  /** Body bytes as they came over the wire, before decompression. */
  rawBytes: number;
  truncated: boolean;
  location?: string;
  /** How an HTML body became content: 'markdown', or 'text' when it was too large or deep to convert. */
  converted?: 'markdown' | 'text';
  /** Why an HTML body came back as plain text. */
  note?: string;
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
 * on the same host and port only (the port the grant was checked for), at most five, each re-checked;
 * one to another host or port (http→https on default ports too: 80 is not 443) is returned, not
 * followed, so the agent's next call goes through the gate (and the person) again. A compressed
 * body (gzip, deflate, br, stacked up to three deep) is cut at maxBytes decompressed while it
 * streams, and at 10 MiB as received, so a compression bomb is never unpacked.
 */
export const httpFetchTool = defineTool({
  name: 'http_fetch',
  version: '1.0.0',
  description:
    'Fetches an http(s) URL (GET or HEAD) from a domain this gate grants and returns the response: HTML as Markdown, ' +
    'other text as is, nothing for binary types. Redirects on the same host and port are followed (at most 5); a redirect ' +
    'to another host or port is returned with its location, to fetch with a new call. A person approves each request.',
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
      timeoutSeconds: z
        .number()
        .int()
        .min(1)
        .max(FETCH_DEADLINE_MS / 1000)
        .default(FETCH_DEADLINE_MS / 1000)
        .describe(`Seconds the whole fetch may take, redirects and body included (default and most ${FETCH_DEADLINE_MS / 1000})`),
    })
    .strict(),
  output: z.object({
    status: z.number().int().describe('HTTP status of the last response'),
    url: z.string().describe('The URL the content came from, after redirects'),
    contentType: z.string().describe('The Content-Type header ("" when absent)'),
    content: z.string().describe('The body as text; HTML converted to Markdown; "" for HEAD and binary types'),
    bytes: z.number().int().describe('Body bytes read (after decompression)'),
    rawBytes: z.number().int().describe('Body bytes received (before decompression)'),
    truncated: z.boolean().describe(`Whether the body was cut at maxBytes decompressed (or at ${MAX_MAX_BYTES} bytes received)`),
    location: z.string().optional().describe('Where a redirect to another host or port points (not followed)'),
    converted: z.enum(['markdown', 'text']).optional().describe('For HTML: converted to Markdown, or to plain text when too large or deeply nested'),
    note: z.string().optional().describe('Why an HTML body came back as plain text'),
  }),
  execute: async (input, context): Promise<Preview | FetchResult> => {
    const url = parseFetchUrl(input.url);
    if (context.dryRun) return { kind: 'request', method: input.method, url: url.href, host: url.hostname };
    return fetchWithin(url, input.method, input.maxBytes, input.timeoutSeconds * 1000);
  },
});

/** Arms an abort after ms; `expired` says it was this timer (not some other error) that ended the fetch. */
export class FetchDeadline {
  readonly seconds: number;
  expired = false;
  private closed = false;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.seconds = ms / 1000;
    this.timer = setTimeout(() => {
      if (this.closed) return;
      this.expired = true;
      this.controller.abort();
    }, ms);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }
}

/** What a request sends beyond its method and URL (an HTTP tool's headers and body); http_fetch sends neither. */
export interface RequestExtras {
  headers?: Record<string, string>;
  body?: Buffer;
}

/**
 * Fetches start, following same-host redirects, all within one deadline of deadlineMs (exported
 * for tests and for HTTP tools, which reach the network under the same rules as http_fetch).
 */
export async function fetchWithin(
  start: URL,
  method: string,
  maxBytes: number,
  deadlineMs = FETCH_DEADLINE_MS,
  extras: RequestExtras = {},
): Promise<FetchResult> {
  const deadline = new FetchDeadline(deadlineMs);
  try {
    return await fetchFollowingRedirects(start, method, maxBytes, deadline, extras);
  } finally {
    deadline.close();
  }
}

async function fetchFollowingRedirects(start: URL, method: string, maxBytes: number, deadline: FetchDeadline, extras: RequestExtras): Promise<FetchResult> {
  const host = canonicalHost(start.hostname);
  // The gate asked for a grant naming a private literal or localhost; a name must resolve to public addresses.
  const allowPrivate = needsExactGrant(host);
  let url = start;
  for (let redirects = 0; ; redirects++) {
    const response = await openResponse(url, method, allowPrivate, deadline, extras);
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(response.statusCode ?? 0) || location === undefined) {
      return readResult(response, url, method, maxBytes, deadline);
    }
    response.destroy();
    const next = redirectTarget(url, location);
    const leaves = leavesGrant(start, next);
    if (leaves) {
      return {
        status: response.statusCode!,
        url: url.href,
        contentType: response.headers['content-type'] ?? '',
        content: `Redirect to ${leaves}, not followed: ${next.href}. Fetch it with a new call if this gate grants net:read:${grantTarget(next)}.`,
        bytes: 0,
        rawBytes: 0,
        truncated: false,
        location: next.href,
      };
    }
    if (redirects === MAX_REDIRECTS) {
      throw new GateError('EQUOTA', `${start.href} redirected more than ${MAX_REDIRECTS} times; the last hop pointed to ${next.href}`);
    }
    // As browsers do: a 303 (and a 301 or 302 after a POST) is followed with a GET, without the body.
    const status = response.statusCode;
    if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
      method = 'GET';
      extras = { ...(extras.headers ? { headers: extras.headers } : {}) };
    }
    url = next;
  }
}

/** Why a redirect leaves what the gate checked (another host, or another port), or undefined when it stays. */
function leavesGrant(start: URL, next: URL): string | undefined {
  if (canonicalHost(next.hostname) !== canonicalHost(start.hostname)) return 'another host';
  if (effectivePort(next) !== effectivePort(start)) return `another port (${effectivePort(next)}, not ${effectivePort(start)})`;
  return undefined;
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

function openResponse(url: URL, method: string, allowPrivate: boolean, deadline: FetchDeadline, extras: RequestExtras): Promise<IncomingMessage> {
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(literal) !== 0 && isPrivateAddress(literal)) {
    return Promise.reject(privateAddressError(url.hostname, literal));
  }
  const request = url.protocol === 'https:' ? https().request : http().request;
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method,
      lookup: guardedLookup(allowPrivate),
      signal: deadline.signal,
      headers: {
        'user-agent': 'toolgate-http-fetch/1.0',
        accept: 'text/html, text/plain;q=0.9, */*;q=0.5',
        ...extras.headers,
        // Set last: a decoder the response might need is one readDecoded knows.
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    outgoing.on('response', resolve);
    outgoing.on('error', (error) => reject(requestError(url, error, deadline)));
    outgoing.end(extras.body);
  });
}

/**
 * A `lookup` for http.request that refuses a name resolving to any loopback or private address:
 * checked on the very addresses the socket will use, so a DNS answer that changes between the
 * gate's check and the connection (rebinding) cannot slip through.
 */
export function guardedLookup(allowPrivate: boolean, resolve?: typeof import('node:dns').lookup): LookupFunction {
  return (hostname, options, callback) => {
    (resolve ?? dns().lookup)(hostname, { ...options, all: true }, (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
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

function requestError(url: URL, error: Error, deadline: FetchDeadline): Error {
  if (error instanceof GateError || (error as { code?: unknown }).code === 'EPERMISSION') return error;
  if (deadline.expired) return new GateError('ETIMEOUT', `${url.href} did not answer within ${deadline.seconds} s`);
  return new GateError('ERUNTIME', `fetching ${url.href} failed: ${error.message}`);
}

async function readResult(
  response: IncomingMessage,
  url: URL,
  method: string,
  maxBytes: number,
  deadline: FetchDeadline,
): Promise<FetchResult> {
  const contentType = response.headers['content-type'] ?? '';
  const base = { status: response.statusCode ?? 0, url: url.href, contentType };
  if (method === 'HEAD') {
    response.destroy();
    return { ...base, content: '', bytes: 0, rawBytes: 0, truncated: false };
  }
  // The wire is held to the tool's network bound whatever maxBytes asks: a compressed body is smaller than its content.
  const { body, rawBytes, truncated } = await readDecoded(response, maxBytes, MAX_MAX_BYTES, deadline).finally(() => response.destroy());
  return { ...base, ...bodyText(body, contentType), bytes: body.length, rawBytes, truncated };
}

/** What bodyText makes of a body: the content, and for HTML how it was converted. */
export type BodyText = Pick<FetchResult, 'content' | 'converted' | 'note'>;

/** The body as text: HTML as Markdown (or plain text when too large or deep), text types by their charset, binary as ''. */
export function bodyText(body: Buffer, contentType: string): BodyText {
  const [type = '', ...parameters] = contentType.toLowerCase().split(';').map((part) => part.trim());
  const charset = parameters.find((parameter) => parameter.startsWith('charset='))?.slice(8).replace(/"/g, '');
  const isHtml = type === 'text/html' || type === 'application/xhtml+xml';
  const isText = isHtml || type.startsWith('text/') || /[/+](json|xml|javascript|ecmascript|csv|yaml|x-www-form-urlencoded)$/.test(type);
  // Without a type, text is what has no NUL byte near its start.
  if (!isText && !(type === '' && !body.subarray(0, 1024).includes(0))) return { content: '' };
  const text = decodeText(body, charset);
  return isHtml ? htmlContent(text) : { content: text };
}

function decodeText(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
