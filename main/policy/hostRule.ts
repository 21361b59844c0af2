import { GateError } from '../../shared/errors';
import { canonicalHost, defaultPort, effectivePort, needsExactGrant, parseFetchUrl, parseHostScope } from '../tools/netAccess';
import { RuleError } from './ruleText';

/**
 * Host rules (`http_fetch(domain:*.python.org)`, `http_fetch(domain:localhost:8080)`) read like the
 * gate's `net:` grants and are matched by the same code: `*.example.com` covers subdomains label by
 * label (never `example.com.evil.net`, never example.com itself), a rule without a port covers the
 * scheme's default port only, `:*` every port.
 */

/** One compiled host specifier: the scope after `domain:`, split and canonical once. */
export interface HostPattern {
  readonly scope: string;
  /** `*`, `*.example.com` or one host, canonical (lower case, punycode, no trailing dot). */
  readonly host: string;
  /** The port named (`*`: any); absent: the scheme's default only. */
  readonly port?: number | '*';
}

/** A URL argument's host and port, read once per call for every host rule. */
export interface HostTarget {
  readonly host: string;
  readonly port: number;
  readonly defaultPort: number;
  /** Loopback, private addresses and localhost: only a rule naming them covers them (SSRF). */
  readonly exact: boolean;
}

/** Compiles `domain:host[:port]`; throws RuleError for anything else. */
export function compileHostPattern(specifier: string): HostPattern {
  const text = specifier.trim();
  if (!text.startsWith('domain:')) {
    throw new RuleError(`${JSON.stringify(specifier)} does not start with domain:`, 'write domain:host, domain:*.example.com or domain:host:port');
  }
  const scope = text.slice('domain:'.length).toLowerCase();
  const parsed = scope === '' || /[/?#@\s]/.test(scope) ? undefined : parseHostScope(scope);
  if (parsed === undefined || (parsed.host.includes('*') && !/^(\*|\*\.[^*]+)$/.test(parsed.host))) {
    throw new RuleError(`${JSON.stringify(specifier)} is not a host with an optional port`, 'write domain:example.com, domain:*.example.com (its subdomains) or domain:example.com:8080; a port is 1–65535 or *');
  }
  const host = parsed.host === '*' ? '*' : parsed.host.startsWith('*.') ? `*.${canonicalHost(parsed.host.slice(2))}` : canonicalHost(parsed.host);
  return { scope, host, ...(parsed.port !== undefined ? { port: parsed.port } : {}) };
}

/** The host and port a URL argument reaches; undefined when it is not a URL the gate would fetch. */
export function hostTarget(url: string): HostTarget | undefined {
  try {
    const parsed = parseFetchUrl(url);
    const host = canonicalHost(parsed.hostname);
    return { host, port: effectivePort(parsed), defaultPort: defaultPort(parsed.protocol), exact: needsExactGrant(host) };
  } catch (error) {
    if (error instanceof GateError) return undefined;
    throw error;
  }
}

/**
 * Whether a host rule covers a URL's host and port, as a `net:` grant of the same scope does
 * (scopeCoversUrl in netAccess.ts): compiled here so a thousand rules cost string compares.
 */
export function hostMatches(pattern: HostPattern, target: HostTarget): boolean {
  const hostCovered =
    pattern.host === '*' ? !target.exact : pattern.host.startsWith('*.') ? !target.exact && target.host.endsWith(pattern.host.slice(1)) : pattern.host === target.host;
  if (!hostCovered) return false;
  return pattern.port === '*' || target.port === (pattern.port ?? target.defaultPort);
}

/** The host and port of a URL argument as a rule names it, for provenance. */
export function hostOf(url: string): string | undefined {
  try {
    const parsed = parseFetchUrl(url);
    return parsed.port === '' ? parsed.hostname : `${parsed.hostname}:${parsed.port}`;
  } catch {
    return undefined;
  }
}
