import { isIP, isIPv4, isIPv6 } from 'node:net';
import { GateError } from '../../shared/errors';

/** The URL schemes a network tool may fetch. */
const FETCHABLE_SCHEMES = ['http:', 'https:'];

/**
 * Parses a URL a network tool was given; anything but http: and https: (file:, ftp:, data:,
 * javascript:, …) is refused with EVALIDATION naming the scheme.
 */
export function parseFetchUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new GateError('EVALIDATION', `${JSON.stringify(raw.slice(0, 200))} is not an absolute URL; send one like https://example.com/page`);
  }
  if (!FETCHABLE_SCHEMES.includes(url.protocol)) {
    throw new GateError('EVALIDATION', `the ${url.protocol} scheme is not allowed; only http: and https: URLs can be fetched`, {
      scheme: url.protocol,
    });
  }
  if (url.hostname === '') throw new GateError('EVALIDATION', `${url.href} names no host`);
  if (url.username !== '' || url.password !== '') {
    // http://granted.example@evil.example/ goes to evil.example: the part before @ only misleads a reader.
    throw new GateError(
      'EVALIDATION',
      `${JSON.stringify(raw.slice(0, 200))} carries a user name or password before @; http_fetch sends none, so send the URL without it (it goes to ${url.hostname})`,
      { host: url.hostname },
    );
  }
  return url;
}

/** The scheme's default port: 443 for https:, 80 for http:. */
export function defaultPort(protocol: string): number {
  return protocol === 'https:' ? 443 : 80;
}

/** The port a URL connects to: the one it names, or its scheme's default. */
export function effectivePort(url: URL): number {
  return url.port === '' ? defaultPort(url.protocol) : Number(url.port);
}

/** A host grant's scope split: the host pattern, and the port it names (`*`: any), if any. */
export interface HostScope {
  host: string;
  port?: number | '*';
}

/**
 * Splits the scope of a `net:<access>:<scope>` grant: `example.com`, `example.com:8443`,
 * `*.example.com:443`, `*:8080`, `[::1]:8080`, `[::1]`, or a bare IPv6 `::1` (no port: an IPv6
 * address with a port needs brackets). A port that is not 1–65535 or `*` makes a scope that covers
 * nothing (undefined), so a typo never widens a grant.
 */
export function parseHostScope(scope: string): HostScope | undefined {
  let host = scope;
  let port: string | undefined;
  if (scope.startsWith('[')) {
    const close = scope.indexOf(']');
    if (close === -1) return undefined;
    host = scope.slice(1, close);
    const rest = scope.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) return undefined;
    port = rest === '' ? undefined : rest.slice(1);
  } else if (scope.split(':').length === 2) {
    [host, port] = scope.split(':') as [string, string];
  }
  if (port === undefined) return { host };
  if (port === '*') return { host, port };
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) return undefined;
  return { host, port: Number(port) };
}

/** How a host and port read in a `--grant net:read:…` flag: IPv6 in brackets when a port follows. */
export function grantTarget(url: URL): string {
  const bare = url.hostname.replace(/^\[|\]$/g, '');
  if (url.port === '') return bare;
  return `${isIPv6(bare) ? `[${bare}]` : bare}:${url.port}`;
}

/** A host as grants and URLs are compared: lower case, no IPv6 brackets, no trailing dot, IPv6 compressed. */
export function canonicalHost(host: string): string {
  let bare = host.trim().toLowerCase();
  if (bare.startsWith('[') && bare.endsWith(']')) bare = bare.slice(1, -1);
  if (bare.endsWith('.')) bare = bare.slice(0, -1);
  if (isIPv6(bare)) return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  try {
    // The URL parser turns IDNs into punycode and odd IPv4 forms (0x7f.1, 2130706433) into dotted quads.
    return new URL(`http://${bare}/`).hostname;
  } catch {
    return bare;
  }
}

/**
 * Whether reaching this host needs a grant naming it exactly: loopback, private and link-local
 * address literals, and `localhost` (a bare `net:read` or a wildcard never covers them: SSRF).
 */
export function needsExactGrant(host: string): boolean {
  const bare = canonicalHost(host);
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  return isIP(bare) !== 0 && isPrivateAddress(bare);
}

/**
 * Whether the scope of a `net:<access>[:scope]` grant covers a host: no scope or `*` covers every
 * public host, `*.example.com` covers its subdomains (not example.com itself), anything else only
 * that exact host. Hosts needing an exact grant are covered only by one naming them.
 */
export function scopeCoversHost(scope: string | undefined, host: string): boolean {
  const wanted = canonicalHost(host);
  if (scope === undefined || scope === '' || scope === '*') return !needsExactGrant(wanted);
  if (scope.startsWith('*.')) {
    return !needsExactGrant(wanted) && wanted.endsWith(`.${canonicalHost(scope.slice(2))}`);
  }
  return canonicalHost(scope) === wanted;
}

/**
 * Whether a grant's scope covers a URL: its host (see scopeCoversHost) and its port. A scope
 * without a port covers only the scheme's default port (80 for http, 443 for https), so
 * `net:read:localhost` never reaches another service on localhost:8080; `host:8080` covers that
 * port only, `host:*` every port.
 */
export function scopeCoversUrl(scope: string | undefined, url: URL): boolean {
  const parsed = scope === undefined || scope === '' ? { host: '*' } : parseHostScope(scope);
  if (parsed === undefined || !scopeCoversHost(parsed.host, url.hostname)) return false;
  if (parsed.port === '*') return true;
  return effectivePort(url) === (parsed.port ?? defaultPort(url.protocol));
}

/**
 * Whether an IP address is loopback, private, link-local, unspecified, shared (CGNAT) or
 * multicast/reserved: an address a fetch of the public web must never end up at. IPv4-mapped and
 * NAT64 IPv6 forms are judged by the IPv4 address inside. Anything that is not an IP counts as private.
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return isPrivateIpv4(ipv4Octets(bare));
  if (!isIPv6(bare)) return true;
  const groups = ipv6Groups(bare);
  const embedded = [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff];
  const zeroHead = (count: number) => groups.slice(0, count).every((group) => group === 0);
  if (zeroHead(5) && groups[5] === 0xffff) return isPrivateIpv4(embedded); // ::ffff:a.b.c.d
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0)) return isPrivateIpv4(embedded);
  if (zeroHead(6)) return true; // ::, ::1 and the old IPv4-compatible ::a.b.c.d
  const first = groups[0]!;
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00;
}

function ipv4Octets(address: string): number[] {
  return address.split('.').map(Number);
}

function isPrivateIpv4([a, b]: number[]): boolean {
  return (
    a === 0 || // "this network"; 0.0.0.0 reaches the local machine
    a === 10 ||
    a === 127 ||
    (a === 100 && b! >= 64 && b! <= 127) || // shared address space (CGNAT)
    (a === 169 && b === 254) ||
    (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && b === 168) ||
    a! >= 224 // multicast and reserved
  );
}

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted quad becomes the last two). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = ipv4Octets(quad[1]!);
    text = `${text.slice(0, quad.index)}${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  if (tail === undefined) return front;
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}
