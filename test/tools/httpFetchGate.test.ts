import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Capability } from '../../shared/manifest';
import { auditKinds, nextApproval, openGate, type Harness } from '../executor/gateHarness';
import { privateHostName, startTestServer, type TestServer } from './httpFetchServer';

// http_fetch through a real gate: grants checked in the gate, the tool in a real tool process
// (in bubblewrap with the host network where the machine has it). Needs `npx electron-vite build`.

const privateName = await privateHostName();
let server: TestServer;
let harness: Harness | undefined;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function gate(grants: Capability[]) {
  harness = await openGate({ grants });
  return harness.gate;
}

describe('http_fetch through a real gate', () => {
  it('refuses a host no grant covers before anything runs, naming the --grant flag', async () => {
    const g = await gate(['net:read:api.github.com']);
    const result = await g.executor.call({ tool: 'http_fetch', arguments: { url: `${server.origin}/text` } });
    expect(result.ok).toBe(false);
    expect(result.error).toMatchObject({
      code: 'EPERMISSION',
      details: { host: '127.0.0.1', port: server.port, missing: [`net:read:127.0.0.1:${server.port}`] },
    });
    expect(result.error!.message).toContain(`--grant net:read:127.0.0.1:${server.port}`);
    expect(auditKinds(g, result.meta.callId)).toEqual(['invoked', 'capability', 'rejected']);
    expect(server.requests).toEqual([]);
  });

  it('does not let a bare net:read reach a loopback address', async () => {
    const g = await gate(['net:read']);
    const result = await g.executor.call({ tool: 'http_fetch', arguments: { url: `http://localhost:${server.port}/text` } });
    expect(result.error).toMatchObject({ code: 'EPERMISSION' });
    expect(result.error!.message).toContain('loopback or private address is reached only when granted by name');
    expect(server.requests).toEqual([]);
  });

  it('refuses file: and javascript: URLs with EVALIDATION naming the scheme', async () => {
    const g = await gate(['net:read']);
    for (const [url, scheme] of [
      ['file:///etc/passwd', 'file:'],
      ['javascript:alert(document.cookie)', 'javascript:'],
    ]) {
      const result = await g.executor.call({ tool: 'http_fetch', arguments: { url } });
      expect(result.error, url).toMatchObject({ code: 'EVALIDATION' });
      expect(result.error!.message).toContain(`the ${scheme} scheme is not allowed`);
    }
  });

  it('shows the request preview, sends nothing until approved, then fetches', async () => {
    const g = await gate([`net:read:127.0.0.1:${server.port}`]);
    const url = `${server.origin}/html`;
    const prompt = nextApproval(g);
    const call = g.executor.call({ tool: 'http_fetch', arguments: { url } });
    const request = await prompt;
    expect(request).toMatchObject({ tool: 'http_fetch', tier: 'ELEVATED', rule: 'tier:ELEVATED→ask' });
    expect(request.preview).toEqual({ kind: 'request', method: 'GET', url, host: '127.0.0.1' });
    expect(server.requests).toEqual([]);

    g.approvals.decide(request.approvalId, 'approve');
    const result = await call;
    expect(result.ok).toBe(true);
    expect(result.data).toMatchObject({ status: 200, url, contentType: 'text/html; charset=utf-8', truncated: false });
    expect((result.data as { content: string }).content).toContain('Some **bold** text');
    expect(server.requests).toEqual(['GET /html']);
    const capability = g.audit.forCall(result.meta.callId).find((record) => record.kind === 'capability');
    expect(capability?.payload).toMatchObject({ allowed: true, urls: [{ argument: 'url', host: '127.0.0.1', port: server.port, grant: `net:read:127.0.0.1:${server.port}` }] });
    expect(g.audit.verify().ok).toBe(true);
  });

  it.skipIf(!privateName)('refuses, in the tool process, a granted name that resolves to a loopback address', async () => {
    const g = await gate([`net:read:${privateName}:${server.port}`]);
    const prompt = nextApproval(g);
    const call = g.executor.call({ tool: 'http_fetch', arguments: { url: `http://${privateName}:${server.port}/text` } });
    g.approvals.decide((await prompt).approvalId, 'approve');
    const result = await call;
    expect(result.error).toMatchObject({ code: 'EPERMISSION' });
    expect(result.error!.message).toContain(`${privateName} resolves to`);
    expect(server.requests.filter((line) => line === 'GET /text')).toEqual([]);
  });
});
