import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** What Host and Origin may say for one port: made once per port, not for every request. */
interface LoopbackNames {
  /** The hosts a loopback gate answers to; anything else is a DNS-rebinding attempt. */
  hosts: Set<string>;
  /** The origins a browser page may call from: only the console's own. */
  origins: Set<string>;
}

const namesByPort = new Map<number, LoopbackNames>();

function loopbackNames(port: number): LoopbackNames {
  let names = namesByPort.get(port);
  if (!names) {
    const hosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
    names = { hosts: new Set(hosts), origins: new Set(hosts.map((host) => `http://${host}`)) };
    namesByPort.set(port, names);
  }
  return names;
}

/** Why a request's Host or Origin is refused, or undefined when both are ours. */
export function foreignHeaders(
  headers: IncomingHttpHeaders,
  port: number,
  requireOrigin = false,
): { step: 'host' | 'origin'; message: string } | undefined {
  const { hosts, origins } = loopbackNames(port);
  const host = headers.host;
  if (!host || !hosts.has(host.toLowerCase())) {
    return { step: 'host', message: `the Host header ${JSON.stringify(host ?? '')} is not this gate` };
  }
  const origin = headers.origin;
  if (origin === undefined) return requireOrigin ? { step: 'origin', message: 'a browser request must carry an Origin header' } : undefined;
  if (!origins.has(origin.toLowerCase())) {
    return { step: 'origin', message: `requests from the origin ${JSON.stringify(origin)} are refused` };
  }
  return undefined;
}

/** The two credentials a gate serves with: each opens its own surface only. */
export interface GateTokens {
  /** The agents' bearer token: /mcp only. */
  mcp: string;
  /** The person's console token: /bridge only (every console action: decide, stop, settings); none when the console is not served to a browser. */
  console?: string;
}

/** Constant-time token comparison; nothing matches a token that does not exist. */
export function tokenMatches(presented: string | undefined, token: string | undefined): boolean {
  if (!presented || !token) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The bearer token of an Authorization header. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '');
  return match?.[1];
}

/** A request target whose path has only letters, digits, `_`, `-` and single slashes: its path is itself. */
const PLAIN_TARGET = /^((?:\/[\w-]+)+\/?|\/)(?:[?#]|$)/;

/** The path of a request target, or undefined when it cannot be parsed (answer 400; never throw in a request handler). */
export function requestPathname(url: string | undefined): string | undefined {
  // Most targets are a plain path (`/mcp`, `/api/calls?since=9`): read as it is, which is what the
  // URL parser would make of it, for a twentieth of the cost. Anything else (dots, escapes,
  // backslashes, a leading `//`) goes through the parser, which normalizes it.
  const plain = url === undefined ? undefined : PLAIN_TARGET.exec(url);
  if (plain) return plain[1];
  try {
    return new URL(url ?? '/', 'http://gate').pathname;
  } catch {
    return undefined;
  }
}
