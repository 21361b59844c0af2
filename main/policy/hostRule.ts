import { GateError } from '../../shared/errors';
import { parseFetchUrl, parseHostScope, scopeCoversUrl } from '../tools/netAccess';
import { RuleError } from './ruleText';

/**
 * Host rules (`http_fetch(domain:*.python.org)`, `http_fetch(domain:localhost:8080)`) read like the
 * gate's `net:` grants and are matched by the same code: `*.example.com` covers subdomains label by
 * label (never `example.com.evil.net`, never example.com itself), a rule without a port covers the
 * scheme's default port only, `:*` every port.
 */

/** One compiled host specifier: the scope after `domain:`. */
export interface HostPattern {
  readonly scope: string;
}

/** Compiles `domain:host[:port]`; throws RuleError for anything else. */
export function compileHostPattern(specifier: string): HostPattern {
  const text = specifier.trim();
  if (!text.startsWith('domain:')) {
    throw new RuleError(`${JSON.stringify(specifier)} does not start with domain:`, 'write domain:host, domain:*.example.com or domain:host:port');
  }
  const scope = text.slice('domain:'.length).toLowerCase();
  if (scope === '' || parseHostScope(scope) === undefined || /[/?#@\s]/.test(scope) || (scope.includes('*') && !/^(\*|\*\.[^*]+)(:(\d+|\*))?$/.test(scope))) {
    throw new RuleError(`${JSON.stringify(specifier)} is not a host with an optional port`, 'write domain:example.com, domain:*.example.com (its subdomains) or domain:example.com:8080; a port is 1–65535 or *');
  }
  return { scope };
}

/** Whether a URL argument goes to a host and port the pattern covers; an unreadable URL never matches. */
export function hostMatches(pattern: HostPattern, url: string): boolean {
  try {
    return scopeCoversUrl(pattern.scope, parseFetchUrl(url));
  } catch (error) {
    if (error instanceof GateError) return false;
    throw error;
  }
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
