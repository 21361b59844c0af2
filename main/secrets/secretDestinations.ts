/**
 * Where a secret may go (`toolgate secret set NAME --for DEST`), and where a call would send one.
 *
 * A destination is written one of three ways:
 * - `http_fetch:HOST` or `http_fetch:HOST:PORT` (any tool with URL arguments, by its name): requests
 *   to that host (at any port, or that port), and no other;
 * - `server:NAME`: the upstream server NAME of servers.json (its env and headers, and the arguments
 *   of its tools `NAME__tool`);
 * - a tool's name (`shell_exec`, or a module's tool): that tool, wherever it runs. A shell can
 *   print or send the value in any form, so the prompt says so.
 *
 * A secret stored without `--for` keeps the rules it had before destinations existed: any tool
 * that takes secrets, always asked of a person, and never an upstream tool's arguments.
 */
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { ServerNameSchema, UPSTREAM_SEPARATOR } from '../../shared/upstream';

/** A tool's name as a destination: a built-in or module tool (an upstream one is `server:NAME`). */
const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** The tool whose requests need a host: a bare `http_fetch` would let a secret go anywhere. */
const HOST_TOOL = 'http_fetch';
/** HOST or HOST:PORT, HOST possibly an [IPv6] literal. */
const HOST_AND_PORT = /^(\[[0-9A-Fa-f:.]+\]|[^:/?#@\s[\]*]+)(?::(\d{1,5}))?$/;

/** One place a secret may go, parsed. */
export const SecretDestinationSchema = z.discriminatedUnion('kind', [
  /** A tool, wherever its calls reach. */
  z.object({ kind: z.literal('tool'), tool: z.string() }),
  /** A tool's requests to one host (any port when `port` is absent). */
  z.object({ kind: z.literal('host'), tool: z.string(), host: z.string(), port: z.number().int().optional() }),
  /** An upstream server: its configuration and its tools' arguments. */
  z.object({ kind: z.literal('server'), server: z.string() }),
]);
export type SecretDestination = z.infer<typeof SecretDestinationSchema>;

/** The three ways to write a destination, for every message that refuses one. */
export const DESTINATION_FORMS = '`http_fetch:HOST` (requests to that host, e.g. http_fetch:api.github.com), `server:NAME` (an upstream server of servers.json) or a tool name (e.g. shell_exec)';

function malformed(text: string, why: string): GateError {
  return new GateError('EVALIDATION', `--for ${JSON.stringify(text)} ${why}; write ${DESTINATION_FORMS}`);
}

/** A host as URLs spell it (lower case, punycode, no trailing dot), so `API.GitHub.com.` is `api.github.com`. */
function canonicalHost(host: string): string | undefined {
  if (!URL.canParse(`http://${host}/`)) return undefined;
  return new URL(`http://${host}/`).hostname.replace(/\.$/, '');
}

/** Parses one `--for` value; a malformed one is EVALIDATION saying what is wrong and the forms that work. */
export function parseDestination(text: string): SecretDestination {
  const colon = text.indexOf(':');
  if (colon < 0) {
    if (text === HOST_TOOL) throw malformed(text, 'names no host, so the secret could go to any host; name the one it is for, e.g. http_fetch:api.github.com');
    const [server, tool] = text.split(UPSTREAM_SEPARATOR);
    if (tool !== undefined && ServerNameSchema.safeParse(server).success) {
      throw malformed(text, `names one tool of the upstream server ${server}; a secret goes to a server as a whole: --for server:${server}`);
    }
    if (!TOOL_NAME.test(text)) throw malformed(text, 'is not a destination');
    return { kind: 'tool', tool: text };
  }
  const prefix = text.slice(0, colon);
  const rest = text.slice(colon + 1);
  if (prefix === 'server') {
    const named = ServerNameSchema.safeParse(rest);
    if (!named.success) throw malformed(text, `does not name a server: ${named.error.issues[0]!.message}`);
    return { kind: 'server', server: rest };
  }
  if (!TOOL_NAME.test(prefix)) throw malformed(text, `starts with ${JSON.stringify(prefix)}, which is neither "server" nor a tool name`);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(rest) || rest.includes('/')) throw malformed(text, 'holds a URL; name only its host (and port), e.g. http_fetch:api.github.com');
  if (rest.includes('*')) throw malformed(text, 'holds a wildcard; name each host in full, with one --for each');
  const parts = HOST_AND_PORT.exec(rest);
  const host = parts ? canonicalHost(parts[1]!) : undefined;
  if (!parts || !host) throw malformed(text, `does not end in a host: ${JSON.stringify(rest)}`);
  const port = parts[2] === undefined ? undefined : Number(parts[2]);
  if (port !== undefined && (port < 1 || port > 65535)) throw malformed(text, `has port ${port}, outside 1–65535`);
  return { kind: 'host', tool: prefix, host, ...(port !== undefined ? { port } : {}) };
}

/** A destination as `--for` writes it (canonical: lower-case host). */
export function formatDestination(destination: SecretDestination): string {
  switch (destination.kind) {
    case 'tool':
      return destination.tool;
    case 'server':
      return `server:${destination.server}`;
    case 'host': {
      const host = destination.host.includes(':') ? `[${destination.host.replace(/^\[|\]$/g, '')}]` : destination.host;
      return `${destination.tool}:${host}${destination.port !== undefined ? `:${destination.port}` : ''}`;
    }
  }
}

/** Whether a secret allowed to go to `allowed` may go to `target` (a place a call would send it). */
export function destinationAllows(allowed: SecretDestination, target: SecretDestination): boolean {
  if (allowed.kind === 'tool') return target.kind === 'tool' && target.tool === allowed.tool;
  if (allowed.kind === 'server') return target.kind === 'server' && target.server === allowed.server;
  return (
    target.kind === 'host' && target.tool === allowed.tool && target.host === allowed.host && (allowed.port === undefined || allowed.port === target.port)
  );
}
