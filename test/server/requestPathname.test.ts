import { describe, expect, it } from 'vitest';
import { requestPathname } from '../../main/server/requestGuards';

/** What the WHATWG URL parser makes of a request target's path: the routes are matched on this. */
const parsed = (target: string) => new URL(target, 'http://gate').pathname;

describe('requestPathname', () => {
  const targets = [
    '/', '/mcp', '/mcp/', '/api/calls?since=9', '/mcp?x=/../admin', '/mcp#top', '/a_b-c/d', '/MCP',
    // Hostile or unusual targets: each must come out as the parser normalizes it.
    '//evil.example/mcp', '/a/../mcp', '/./mcp', '/mcp/.', '/%6Dcp', '/m%2fcp', '\\mcp', '/a\\..\\mcp', '/mcp//x',
    '/mcp;x', '/m cp', '/mcp\u0000', '/é', '?x', '#x', '/mcp?', '/..', '/api/calls/..%2f..%2fmcp',
  ];

  it.each(targets)('reads %j as the URL parser does', (target) => {
    expect(requestPathname(target)).toBe(parsed(target));
  });

  it('normalizes dot segments and a protocol-relative target, so a route cannot be reached under another spelling', () => {
    expect(requestPathname('/api/../mcp')).toBe('/mcp');
    expect(requestPathname('//mcp')).toBe('/');
  });

  it('takes a missing target as the root', () => {
    expect(requestPathname(undefined)).toBe('/');
  });
});
