/**
 * What a request turned away at the gate's port is told (the 403 body, and the message its audit
 * record keeps): the Host it came with, the Origin a browser must send, and no path for a target
 * the URL parser cannot read (the gate answers 400). Who gets in is in requestTokens.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { foreignHeaders, requestPathname } from '../../main/server/requestGuards';

const PORT = 43119;

describe('a refused Host or Origin is named', () => {
  it('quotes the Host a rebound page came with', () => {
    for (const host of ['evil.example', `evil.example:${PORT}`, `127.0.0.1:${PORT + 1}`]) {
      expect(foreignHeaders({ host }, PORT)).toEqual({ step: 'host', message: expect.stringContaining(`Host header ${JSON.stringify(host)}`) });
    }
  });

  it('says a request came without Host as an empty one', () => {
    expect(foreignHeaders({}, PORT)).toEqual({ step: 'host', message: expect.stringContaining('Host header "" is not this gate') });
  });

  it('says a browser request must carry an Origin where one is required', () => {
    expect(foreignHeaders({ host: `localhost:${PORT}` }, PORT, true)).toEqual({ step: 'origin', message: expect.stringContaining('must carry an Origin header') });
  });

  it('quotes the Origin of a foreign page', () => {
    expect(foreignHeaders({ host: `localhost:${PORT}`, origin: 'https://evil.example' }, PORT)).toEqual({
      step: 'origin',
      message: expect.stringContaining('"https://evil.example"'),
    });
  });
});

describe('a request target the URL parser cannot read', () => {
  it('has no path, so the gate answers 400 instead of guessing a route', () => {
    for (const target of ['//[', '//a b/mcp', '\\\\[x']) expect(requestPathname(target)).toBeUndefined();
  });
});
