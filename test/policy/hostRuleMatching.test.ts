import { describe, expect, it } from 'vitest';
import { compileHostPattern, hostMatches, hostOf, hostTarget } from '../../main/policy/hostRule';
import { RuleError } from '../../main/policy/ruleText';

/** Whether the rule `http_fetch(<specifier>)` covers a fetch of this URL. */
function covers(specifier: string, url: string): boolean {
  const target = hostTarget(url);
  if (!target) throw new Error(`${url} is not fetchable`);
  return hostMatches(compileHostPattern(specifier), target);
}

describe('a host rule', () => {
  it('covers its own host on the scheme’s default port only, whatever the case or a trailing dot', () => {
    expect(covers('domain:Example.COM', 'https://example.com/a')).toBe(true);
    expect(covers('domain:example.com', 'http://EXAMPLE.com./a')).toBe(true);
    expect(covers('domain:example.com', 'https://example.com:443/a')).toBe(true);
    expect(covers('domain:example.com', 'https://example.com:8443/a')).toBe(false);
    expect(covers('domain:example.com', 'http://example.com:443/a')).toBe(false);
    expect(covers('domain:example.com', 'https://www.example.com/')).toBe(false);
    expect(covers('domain:example.com', 'https://example.com.evil.net/')).toBe(false);
  });

  it('with a port covers that port only, and with :* every port', () => {
    expect(covers('domain:example.com:8080', 'http://example.com:8080/')).toBe(true);
    expect(covers('domain:example.com:8080', 'http://example.com/')).toBe(false);
    expect(covers('domain:example.com:*', 'http://example.com:9999/')).toBe(true);
    expect(covers('domain:example.com:*', 'https://example.com/')).toBe(true);
    expect(covers('domain:example.com:*', 'https://other.com/')).toBe(false);
  });

  it('*.host covers subdomains label by label, never the host itself or a name that only ends alike', () => {
    expect(covers('domain:*.python.org', 'https://docs.python.org/')).toBe(true);
    expect(covers('domain:*.python.org', 'https://a.b.python.org/')).toBe(true);
    expect(covers('domain:*.python.org', 'https://python.org/')).toBe(false);
    expect(covers('domain:*.python.org', 'https://evilpython.org/')).toBe(false);
    expect(covers('domain:*.python.org', 'https://docs.python.org.evil.net/')).toBe(false);
  });

  it('* covers every public host, but loopback, private addresses and localhost only when named', () => {
    expect(covers('domain:*', 'https://anything.example/')).toBe(true);
    for (const url of ['http://localhost/', 'http://127.0.0.1/', 'http://10.0.0.5/', 'http://[::1]/', 'http://api.localhost/']) {
      expect(covers('domain:*', url)).toBe(false);
      expect(covers('domain:*:*', url)).toBe(false);
    }
    expect(covers('domain:*.localhost', 'http://api.localhost/')).toBe(false);
    expect(covers('domain:localhost', 'http://localhost/')).toBe(true);
    expect(covers('domain:127.0.0.1:8080', 'http://127.0.0.1:8080/')).toBe(true);
    expect(covers('domain:[::1]:8080', 'http://[::1]:8080/')).toBe(true);
  });

  it('matches an internationalised host by its punycode form, and an odd IPv4 spelling by its dotted quad', () => {
    expect(covers('domain:bücher.example', 'https://xn--bcher-kva.example/')).toBe(true);
    expect(covers('domain:*.bücher.example', 'https://shop.xn--bcher-kva.example/')).toBe(true);
    expect(covers('domain:127.0.0.1', 'http://0x7f.1/')).toBe(true);
  });

  it('is refused, saying how to write it, when it is not domain:host[:port]', () => {
    for (const specifier of ['example.com', 'domain:', 'domain:a/b', 'domain:a?b', 'domain:a#b', 'domain:user@host', 'domain:a b', 'domain:ex*ample.com', 'domain:*example.com', 'domain:*.*.com', 'domain:example.com:0', 'domain:example.com:99999', 'domain:[::1']) {
      expect(() => compileHostPattern(specifier), specifier).toThrow(RuleError);
    }
  });

  it('keeps what it was written as, lower-cased, beside the host and port it names', () => {
    expect(compileHostPattern('  domain:Docs.Python.org:8443 ')).toEqual({ scope: 'docs.python.org:8443', host: 'docs.python.org', port: 8443 });
    expect(compileHostPattern('domain:*.Python.org')).toEqual({ scope: '*.python.org', host: '*.python.org' });
    expect(compileHostPattern('domain:*')).toEqual({ scope: '*', host: '*' });
  });
});

describe('a URL argument', () => {
  it('is no target when the gate would not fetch it, and names its host and port for provenance', () => {
    expect(hostTarget('not a url')).toBeUndefined();
    expect(hostTarget('file:///etc/passwd')).toBeUndefined();
    expect(hostTarget('https://Example.com:8443/x')).toEqual({ host: 'example.com', port: 8443, defaultPort: 443, exact: false });
    expect(hostTarget('http://localhost/')).toEqual({ host: 'localhost', port: 80, defaultPort: 80, exact: true });
    expect(hostOf('https://example.com:8443/x')).toBe('example.com:8443');
    expect(hostOf('https://example.com/x')).toBe('example.com');
    expect(hostOf('ftp://example.com/')).toBeUndefined();
  });
});
