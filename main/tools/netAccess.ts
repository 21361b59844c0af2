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
  return url;
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
