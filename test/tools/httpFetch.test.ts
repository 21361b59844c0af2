import type { LookupAddress } from 'node:dns';
import { brotliCompressSync, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GateError } from '../../shared/errors';
import { checkCapabilities, checkUrlArguments } from '../../main/executor/steps/checkCapabilities';
import { StepFailure } from '../../main/executor/steps/stepFailure';
import { bodyText, fetchWithin, guardedLookup, httpFetchTool } from '../../main/tools/httpFetch';
import { isPrivateAddress, needsExactGrant, parseFetchUrl, scopeCoversHost } from '../../main/tools/netAccess';
import { privateHostName, startTestServer, type TestServer } from './httpFetchServer';
import { gateErrorOf } from '../fixtures/gateErrors';

const privateName = await privateHostName();

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** Runs the tool's code in-process, after its input schema, as the tool process would. */
async function fetchIt(input: Record<string, unknown>, dryRun = false): Promise<any> {
  return httpFetchTool.execute(httpFetchTool.input.parse(input), { workspace: '/nonexistent', dryRun, callId: 'test-call' });
}

async function failure(input: Record<string, unknown>, dryRun = false): Promise<GateError> {
  return gateErrorOf(() => fetchIt(input, dryRun));
}

describe('http_fetch: fetching', () => {
  it('GETs text and says where it came from', async () => {
    const result = await fetchIt({ url: `${server.origin}/text` });
    expect(result).toEqual({
      status: 200,
      url: `${server.origin}/text`,
      contentType: 'text/plain; charset=utf-8',
      content: 'hello from the test server\n',
      bytes: 27,
      rawBytes: 27,
      truncated: false,
    });
    expect(httpFetchTool.output.safeParse(result).success).toBe(true);
  });

  it('HEAD returns the status and type without a body', async () => {
    const before = server.requests.length;
    const result = await fetchIt({ url: `${server.origin}/html`, method: 'HEAD' });
    expect(result).toMatchObject({ status: 200, contentType: 'text/html; charset=utf-8', content: '', bytes: 0, truncated: false });
    expect(server.requests.slice(before)).toEqual(['HEAD /html']);
  });

  it('turns HTML into Markdown, leaving scripts and styles out', async () => {
    const result = await fetchIt({ url: `${server.origin}/html` });
    expect(result.content).toContain('# Title');
    expect(result.content).toContain('Some **bold** text and a [link](/next).');
    expect(result.content).toMatch(/^\* one$/m);
    expect(result.content).not.toContain('steal()');
    expect(result.content).not.toContain('color: red');
    expect(result.converted).toBe('markdown');
    expect(result.note).toBeUndefined();
  });

  it('returns a deeply nested page as plain text, at once, and says why', async () => {
    // At once: the look at its nesting refused the converter, which never ran (the note says so).
    const result = await fetchIt({ url: `${server.origin}/nested`, maxBytes: 2 * 1024 * 1024 });
    expect(result).toMatchObject({ content: 'deep & down', converted: 'text', truncated: false });
    expect(result.note).toContain('nest 100000 deep');
    expect(httpFetchTool.output.safeParse(result).success).toBe(true);
  });

  it('returns a page too large to convert in time as plain text', async () => {
    // Its size alone sent it to plain text (the note says so): the converter never ran on it.
    const result = await fetchIt({ url: `${server.origin}/wide`, maxBytes: 2 * 1024 * 1024 });
    expect(result).toMatchObject({ converted: 'text' });
    expect(result.note).toMatch(/KiB of markup \(more than 256 KiB\)/);
    expect(result.content.split('\n\n', 2)).toEqual(['Some bold text and a link.', 'Some bold text and a link.']);
  });

  it('decompresses gzip, returns nothing of binary types, and reports 404 as data', async () => {
    expect((await fetchIt({ url: `${server.origin}/gzip` })).content).toBe('unzipped text');
    expect(await fetchIt({ url: `${server.origin}/binary` })).toMatchObject({ contentType: 'image/png', content: '', bytes: 8 });
    expect(await fetchIt({ url: `${server.origin}/missing` })).toMatchObject({ status: 404, content: 'not here' });
  });

  it('undoes stacked codings, last applied first, and counts the bytes that came over the wire', async () => {
    expect(await fetchIt({ url: `${server.origin}/gzip-gzip` })).toMatchObject({ content: 'twice unzipped', bytes: 14, truncated: false });
    const layered = await fetchIt({ url: `${server.origin}/br-deflate` });
    expect(layered).toMatchObject({ content: 'inflated and unbrotlied', truncated: false });
    expect(layered.rawBytes).toBe(brotliCompressSync(deflateSync('inflated and unbrotlied')).length);
  });

  it('cuts a body that sends many bytes and decompresses to nothing, at 10 MiB on the wire', async () => {
    const result = await fetchIt({ url: `${server.origin}/empty-members`, maxBytes: 1000 });
    expect(result).toMatchObject({ bytes: 0, truncated: true, content: '' });
    expect(result.rawBytes).toBeGreaterThan(10 * 1024 * 1024);
  });

  it('a small maxBytes still decodes a compressed body larger than it', async () => {
    const result = await fetchIt({ url: `${server.origin}/gzip-bomb`, maxBytes: 100 });
    expect(result).toMatchObject({ bytes: 100, truncated: true, content: 'A'.repeat(100) });
  });

  it('refuses a coding it cannot decode, and more than three layers, naming them', async () => {
    expect((await failure({ url: `${server.origin}/compress` })).message).toContain('the content coding "compress"');
    expect((await failure({ url: `${server.origin}/four-layers` })).message).toContain('compressed 4 times over');
  });

  it('stops reading at maxBytes and says it was truncated', async () => {
    expect(await fetchIt({ url: `${server.origin}/big`, maxBytes: 100 })).toMatchObject({ bytes: 100, truncated: true, content: 'x'.repeat(100) });
    expect(await fetchIt({ url: `${server.origin}/big`, maxBytes: 5000 })).toMatchObject({ bytes: 5000, truncated: false });
    expect(httpFetchTool.input.safeParse({ url: `${server.origin}/big`, maxBytes: 11 * 1024 * 1024 }).success).toBe(false);
  });

  it('follows up to five redirects on the same host, and fails past that', async () => {
    expect(await fetchIt({ url: `${server.origin}/r/5` })).toMatchObject({ status: 200, url: `${server.origin}/r/0`, content: 'landed' });
    const tooMany = await failure({ url: `${server.origin}/r/6` });
    expect(tooMany.code).toBe('EQUOTA');
    expect(tooMany.message).toContain('more than 5 times');
    expect(await fetchIt({ url: `${server.origin}/303`, method: 'HEAD' })).toMatchObject({ status: 200, url: `${server.origin}/text` });
  });

  it('returns a redirect to another port on the same host instead of following it', async () => {
    const result = await fetchIt({ url: `${server.origin}/other-port` });
    expect(result).toMatchObject({ status: 302, location: `http://127.0.0.1:${server.port + 1}/text`, bytes: 0 });
    expect(result.content).toContain(`Redirect to another port (${server.port + 1}, not ${server.port}), not followed`);
    expect(result.content).toContain(`net:read:127.0.0.1:${server.port + 1}`);
  });

  it('returns a redirect to another host instead of following it', async () => {
    const before = server.requests.length;
    const result = await fetchIt({ url: `${server.origin}/away` });
    expect(result).toMatchObject({ status: 302, url: `${server.origin}/away`, location: `http://localhost:${server.port}/text` });
    expect(server.requests.slice(before)).toEqual(['GET /away']);
  });

  it('a body that never finishes ends in ETIMEOUT at the fetch deadline, not in a read error', async () => {
    // Long enough for the headers to come first, on a busy machine too: the body is what never ends.
    const error = await fetchWithin(new URL(`${server.origin}/trickle`), 'GET', 1024 * 1024, 2000).catch((caught) => caught);
    expect(error).toBeInstanceOf(GateError);
    expect(error.code).toBe('ETIMEOUT');
    // The fetch's own 2 s deadline ended it, as its message says, not the test's timeout.
    expect(error.message).toMatch(/^the response body did not arrive within 2 s \(\d+ bytes had come\)$/);
  });

  it('takes a shorter deadline from the call, 1 to 20 s, 20 when none is given', async () => {
    const error = await gateErrorOf(() => fetchIt({ url: `${server.origin}/silent`, timeoutSeconds: 1 }));
    expect(error).toMatchObject({ code: 'ETIMEOUT', message: `${server.origin}/silent did not answer within 1 s` });
    expect((httpFetchTool.input.parse({ url: server.origin }) as { timeoutSeconds: number }).timeoutSeconds).toBe(20);
    for (const timeoutSeconds of [0, 21, 1.5]) expect(httpFetchTool.input.safeParse({ url: server.origin, timeoutSeconds }).success).toBe(false);
  });

  it('the same deadline covers headers that never come and a compressed body that stalls', async () => {
    const silent = await fetchWithin(new URL(`${server.origin}/silent`), 'GET', 1024, 500).catch((caught) => caught);
    expect(silent).toMatchObject({ code: 'ETIMEOUT', message: `${server.origin}/silent did not answer within 0.5 s` });
    // Long enough for the headers and half the body to come first, on a busy machine too.
    const stalled = await fetchWithin(new URL(`${server.origin}/stall-gzip`), 'GET', 1024 * 1024, 2000).catch((caught) => caught);
    expect(stalled).toMatchObject({ code: 'ETIMEOUT' });
    expect(stalled.message).toContain('the response body did not arrive within 2 s');
  });

  it('refuses file:, javascript:, data: and ftp: URLs, naming the scheme', async () => {
    for (const [url, scheme] of [
      ['file:///etc/passwd', 'file:'],
      ['javascript:alert(1)', 'javascript:'],
      ['data:text/plain,hi', 'data:'],
      ['ftp://example.com/x', 'ftp:'],
    ]) {
      const error = await failure({ url: url! });
      expect(error.code).toBe('EVALIDATION');
      expect(error.message).toContain(`the ${scheme} scheme is not allowed`);
    }
    expect((await failure({ url: 'not a url' })).code).toBe('EVALIDATION');
  });

  it('a dry run is the request preview and sends nothing', async () => {
    const before = server.requests.length;
    expect(await fetchIt({ url: `${server.origin}/text?q=1`, method: 'HEAD' }, true)).toEqual({
      kind: 'request',
      method: 'HEAD',
      url: `${server.origin}/text?q=1`,
      host: '127.0.0.1',
    });
    expect(await fetchIt({ url: 'https://API.GitHub.com/repos' }, true)).toEqual({
      kind: 'request',
      method: 'GET',
      url: 'https://api.github.com/repos',
      host: 'api.github.com',
    });
    expect(server.requests.length).toBe(before);
  });

  it.skipIf(!privateName)('refuses a name that resolves to a loopback address (this machine’s own name)', async () => {
    const error = await failure({ url: `http://${privateName}:${server.port}/text` });
    expect(error.code).toBe('EPERMISSION');
    expect(error.message).toMatch(/resolves to .*loopback or private address/);
  });
});

describe('http_fetch: the resolved-address guard', () => {
  const fakeResolver = (addresses: LookupAddress[]) =>
    ((_host: string, _options: unknown, callback: (error: null, addresses: LookupAddress[]) => void) => callback(null, addresses)) as never;
  const resolveWith = (allowPrivate: boolean, addresses: LookupAddress[], all: boolean) =>
    new Promise<{ error: Error | null; address: unknown }>((resolve) =>
      guardedLookup(allowPrivate, fakeResolver(addresses))('rebound.example', { all }, (error, address) => resolve({ error, address })),
    );

  it('refuses a name when any address it resolves to is private, right before connecting', async () => {
    const rebound = await resolveWith(false, [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }], true);
    expect(rebound.error).toMatchObject({ code: 'EPERMISSION' });
    expect(rebound.error!.message).toContain('rebound.example resolves to 10.0.0.7');
    expect((await resolveWith(false, [{ address: '::1', family: 6 }], false)).error).toMatchObject({ code: 'EPERMISSION' });
  });

  it('passes public addresses on, in both lookup shapes', async () => {
    const one = await resolveWith(false, [{ address: '93.184.216.34', family: 4 }], false);
    expect(one).toEqual({ error: null, address: '93.184.216.34' });
    const all = await resolveWith(false, [{ address: '2606:2800:220:1::1', family: 6 }], true);
    expect(all).toEqual({ error: null, address: [{ address: '2606:2800:220:1::1', family: 6 }] });
    expect((await resolveWith(true, [{ address: '127.0.0.1', family: 4 }], false)).error).toBeNull();
  });

  it('knows the loopback, private and link-local ranges', () => {
    for (const address of [
      '127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254',
      '0.0.0.0', '100.64.0.1', '::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1%eth0', '::ffff:127.0.0.1',
      '::ffff:7f00:1', '::ffff:10.0.0.1', '64:ff9b::a9fe:a9fe', '[::1]', 'not-an-ip',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:2800:220:1::1', '::ffff:8.8.8.8']) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });

  it('reads content types: text by charset, binary as nothing', () => {
    expect(bodyText(Buffer.from('caf\xe9', 'latin1'), 'text/plain; charset=ISO-8859-1')).toEqual({ content: 'café' });
    expect(bodyText(Buffer.from('{"a":1}'), 'application/json')).toEqual({ content: '{"a":1}' });
    expect(bodyText(Buffer.from('plain'), '')).toEqual({ content: 'plain' });
    expect(bodyText(Buffer.from([0, 1, 2]), '')).toEqual({ content: '' });
    expect(bodyText(Buffer.from([1, 2, 3]), 'application/octet-stream')).toEqual({ content: '' });
  });

  it('the plain-text fallback drops scripts, styles and comments, decodes entities and keeps lines', () => {
    const deep = '<b>'.repeat(600);
    const page =
      `<html><head><title>T</title><style>p{}</style></head><body>${deep}<script>if (a < b) x("</div>")</script>` +
      '<!-- hidden <div> --><h1>Caf&eacute; &amp; bar&#33; &#x1F600;</h1><p>one   two</p>3 < 4<br>last</body></html>';
    const result = bodyText(Buffer.from(page), 'text/html');
    expect(result).toMatchObject({ converted: 'text', note: expect.stringContaining('nest 603 deep') });
    expect(result.content).toBe('T\n\nCaf&eacute; & bar! 😀\n\none two\n3 < 4\nlast');
    // Depth is counted as the converter's parser nests: sibling list items it closes, a paragraph it does not.
    expect(bodyText(Buffer.from('<ul>' + '<li>item'.repeat(2000)), 'text/html').converted).toBe('markdown');
    expect(bodyText(Buffer.from('<ul>' + '<li><p>item'.repeat(2000)), 'text/html').converted).toBe('text');
    expect(bodyText(Buffer.from('<constructor><tostring>x</tostring></constructor>'), 'text/html')).toEqual({ content: 'x', converted: 'markdown' });
  });
});

describe('http_fetch: the gate’s per-URL grant check', () => {
  const manifest = httpFetchTool.manifest;
  const check = (url: string, grants: string[]) => checkUrlArguments(manifest, { url }, grants);

  it('declares its URL argument and a bare net:read', () => {
    expect(manifest).toMatchObject({ tier: 'ELEVATED', sideEffects: ['NetRead'], capabilities: ['net:read'], urlArguments: ['url'], supportsDryRun: true });
  });

  it('refuses a host no grant covers, naming the --grant flag', () => {
    const refused = check('https://evil.example.net/x', ['net:read:api.github.com', 'fs:read']);
    expect(refused).toBeInstanceOf(StepFailure);
    const { error } = refused as StepFailure;
    expect(error.code).toBe('EPERMISSION');
    expect(error.message).toContain('may not reach evil.example.net');
    expect(error.message).toContain('--grant net:read:evil.example.net');
    // Through the whole step too: the bare net:read is decided per URL, not by the tool's declaration.
    expect(checkCapabilities(manifest, { url: 'https://evil.example.net/x' }, ['net:read:api.github.com'], '/')).toBeInstanceOf(StepFailure);
  });

  it('lets an exact, a wildcard or a bare grant through, and reports which', () => {
    expect(check('https://API.github.com/repos', ['net:read:api.github.com'])).toEqual([
      { argument: 'url', host: 'api.github.com', port: 443, grant: 'net:read:api.github.com' },
    ]);
    expect(check('https://raw.cdn.example.com/a', ['net:read:*.example.com'])).toMatchObject([{ grant: 'net:read:*.example.com' }]);
    expect(check('https://example.com/a', ['net:read:*.example.com'])).toBeInstanceOf(StepFailure);
    expect(check('https://notexample.com/a', ['net:read:*.example.com'])).toBeInstanceOf(StepFailure);
    expect(check('https://anything.org/', ['net:read'])).toMatchObject([{ grant: 'net:read' }]);
    const report = checkCapabilities(manifest, { url: 'https://api.github.com/' }, ['net:read:api.github.com'], '/');
    expect(report).toMatchObject({ required: ['net:read'], urls: [{ host: 'api.github.com' }] });
  });

  it('reaches loopback and private addresses only under a grant naming them', () => {
    for (const url of ['http://127.0.0.1:8080/', 'http://localhost/', 'http://[::1]/', 'http://10.0.0.5/', 'http://2130706433/', 'http://0x7f.1/']) {
      const refused = check(url, ['net:read', 'net:read:*']);
      expect(refused, url).toBeInstanceOf(StepFailure);
      expect((refused as StepFailure).error.message).toContain('loopback or private address is reached only when granted by name');
    }
    expect((check('http://2130706433/', []) as StepFailure).error.message).toContain('--grant net:read:127.0.0.1');
    expect(check('http://127.0.0.1:8080/', ['net:read:127.0.0.1:8080'])).toMatchObject([{ host: '127.0.0.1', port: 8080 }]);
    expect(check('http://[::1]/', ['net:read:::1'])).toMatchObject([{ host: '[::1]', port: 80 }]);
    expect(check('http://[::1]:8080/', ['net:read:[::1]:8080'])).toMatchObject([{ host: '[::1]', port: 8080 }]);
    expect(check('http://169.254.169.254/latest', ['net:read:*.169.254'])).toBeInstanceOf(StepFailure);
  });

  it('a grant without a port covers the scheme’s default port only; a port, or *, names the rest', () => {
    expect(check('http://example.com/', ['net:read:example.com'])).toMatchObject([{ port: 80 }]);
    expect(check('https://example.com/', ['net:read:example.com'])).toMatchObject([{ port: 443 }]);
    expect(check('https://example.com:443/', ['net:read:example.com'])).toMatchObject([{ port: 443 }]);
    const refused = check('http://example.com:8080/', ['net:read:example.com']) as StepFailure;
    expect(refused).toBeInstanceOf(StepFailure);
    expect(refused.error.message).toContain('may not reach example.com port 8080');
    expect(refused.error.message).toContain('one without a port covers only 80 for http: --grant net:read:host:port');
    expect(refused.error.message).toContain('--grant net:read:example.com:8080');
    expect(check('https://example.com:80/', ['net:read:example.com'])).toBeInstanceOf(StepFailure);
    expect(check('http://example.com:8080/', ['net:read:example.com:8080'])).toMatchObject([{ port: 8080 }]);
    expect(check('http://example.com:8081/', ['net:read:example.com:8080'])).toBeInstanceOf(StepFailure);
    expect(check('http://example.com/', ['net:read:example.com:8080'])).toBeInstanceOf(StepFailure);
    expect(check('http://example.com:9/', ['net:read:example.com:*'])).toMatchObject([{ port: 9 }]);
    expect(check('https://a.example.com:8443/', ['net:read:*.example.com:8443'])).toMatchObject([{ port: 8443 }]);
    expect(check('https://anything.org:8443/', ['net:read'])).toBeInstanceOf(StepFailure);
    expect(check('https://anything.org:8443/', ['net:read:*:8443'])).toMatchObject([{ port: 8443 }]);
    // Loopback by port too, IPv6 in brackets; a bad port covers nothing.
    expect(check('http://localhost:8080/', ['net:read:localhost'])).toBeInstanceOf(StepFailure);
    expect(check('http://LOCALHOST.:8080/', ['net:read:localhost:8080'])).toMatchObject([{ port: 8080 }]);
    expect((check('http://[::1]:8080/', []) as StepFailure).error.message).toContain('--grant net:read:[::1]:8080');
    expect(check('http://[::1]:8080/', ['net:read:::1'])).toBeInstanceOf(StepFailure);
    // Spellings of one host and port: case, a trailing dot, an IDN and its punycode, an explicit default port.
    expect(check('http://EXAMPLE.com.:8080/', ['net:read:example.com:8080'])).toMatchObject([{ port: 8080 }]);
    expect(check('https://xn--bcher-kva.example:8443/', ['net:read:bücher.example:8443'])).toMatchObject([{ port: 8443 }]);
    expect(check('https://bücher.example:443/', ['net:read:xn--bcher-kva.example'])).toMatchObject([{ port: 443 }]);
    for (const bad of ['net:read:example.com:0', 'net:read:example.com:70000', 'net:read:example.com:', 'net:read:example.com:http']) {
      const refused = check('http://example.com/', [bad]) as StepFailure;
      expect(refused, bad).toBeInstanceOf(StepFailure);
      expect(refused.error.message, bad).toContain(`${bad} covers nothing: a port must be 1–65535 or *`);
    }
  });

  it('refuses user info in a URL, which misleads a reader about the host', () => {
    for (const url of ['http://api.github.com@evil.example/', 'https://user:pass@api.github.com/']) {
      const refused = check(url, ['net:read:api.github.com', 'net:read:evil.example']) as StepFailure;
      expect(refused.error.code, url).toBe('EVALIDATION');
      expect(refused.error.message).toContain('carries a user name or password before @');
    }
  });

  it('refuses other schemes before any grant is looked at', () => {
    const refused = check('file:///etc/passwd', ['net:read']) as StepFailure;
    expect(refused.error).toMatchObject({ code: 'EVALIDATION' });
    expect(refused.error.message).toContain('the file: scheme is not allowed');
  });

  it('matches hosts the way URLs spell them', () => {
    expect(parseFetchUrl('HTTPS://Example.COM./a').hostname).toBe('example.com.');
    expect(scopeCoversHost('example.com', 'example.com.')).toBe(true);
    expect(scopeCoversHost('EXAMPLE.com', 'example.com')).toBe(true);
    expect(needsExactGrant('foo.localhost')).toBe(true);
    expect(needsExactGrant('8.8.8.8')).toBe(false);
  });
});
