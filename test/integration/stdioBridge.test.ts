/**
 * `toolgate mcp`, the stdio bridge an agent launches as a command, forwarding to a separate
 * `toolgate serve`: the official Client with StdioClientTransport, approvals answered in the
 * console over the WebSocket bridge, and a prompt nobody answers.
 */
import { spawn } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BridgeClient, CLI, ROOT, cliEnv, connectStdioBridge, makeTempDirs, readConsoleToken, spawnServe, textOf, type ServeProcess, type TempDirs } from './helpers';
import { WAIT_MS, waitUntil } from '../fixtures/processes';
import { openGateSession } from '../../main/mcp/gateClient';

const clients: Client[] = [];

/** The bridge, launched as a client config would, remembered for closing after each test. */
async function connectStdio(home: string): Promise<Client> {
  const client = await connectStdioBridge(home, 'stdio-integration-test');
  clients.push(client);
  return client;
}

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

describe('stdio bridge to a running gate', () => {
  let dirs: TempDirs;
  let serve: ServeProcess;
  let bridge: BridgeClient;

  beforeAll(async () => {
    dirs = makeTempDirs();
    serve = await spawnServe(dirs);
    bridge = await BridgeClient.open(serve.port, readConsoleToken(dirs.home));
  });

  afterAll(async () => {
    bridge?.close();
    await serve?.stop();
    dirs?.remove();
  });

  it('lists the tools and calls echo', async () => {
    const client = await connectStdio(dirs.home);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['calculator', 'delete_path', 'echo', 'edit_file', 'hash', 'http_fetch', 'list_dir', 'memory_delete', 'memory_list', 'memory_search', 'memory_store', 'read_file', 'search_files', 'shell_exec', 'write_file']);
    expect(tools.find((tool) => tool.name === 'echo')!.inputSchema).toMatchObject({ type: 'object', required: ['text'] });
    const result = await client.callTool({ name: 'echo', arguments: { text: 'through stdio' } });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({ text: 'through stdio' });
    expect(result._meta?.['toolgate/responseHash']).toMatch(/^[0-9a-f]{64}$/);
    // The console names the agent behind the bridge, and the bridge.
    const listed = await bridge.request('listCalls', {});
    const echoed = (listed as { ok: true; value: Array<{ callId: string; agent?: { client: string; via?: { client: string } } }> }).value.find(
      (call) => call.callId === result._meta?.['toolgate/callId'],
    );
    expect(echoed?.agent).toMatchObject({ client: 'stdio-integration-test', via: { client: 'toolgate-stdio-bridge' } });
    const refused = await client.callTool({ name: 'read_file', arguments: { path: '../../etc/passwd' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^EPERMISSION/);
  });

  it("leaves no listener per call on its connection's long-lived signal, however many calls it forwards", async () => {
    const session = await openGateSession(dirs.home, 'listener-count');
    try {
      // The SDK's transport gives each POST this one signal; Node's fetch keeps a listener on it per request until a collection.
      const signal = (session.client.transport as unknown as { _abortController: AbortController })._abortController.signal;
      for (let i = 0; i < 40; i++) {
        const result = await session.client.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
        expect(result.isError).toBe(false);
      }
      // At most the one of the stream it holds open for the gate's notifications.
      expect(getEventListeners(signal, 'abort').length).toBeLessThanOrEqual(1);
    } finally {
      await session.close();
    }
  });

  it('exits on its own when the client closes its stdin', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp'], { cwd: ROOT, env: cliEnv(dirs.home), stdio: 'pipe' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const firstLine = new Promise<string>((resolve) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
        });
      });
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-stdio', version: '0' } },
      };
      child.stdin.write(`${JSON.stringify(initialize)}\n`);
      expect(JSON.parse(await firstLine)).toMatchObject({ id: 1, result: { serverInfo: { name: 'toolgate' } } });
      child.stdin.end();
      const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve(`still running after ${WAIT_MS / 1000} s`), WAIT_MS))]);
      expect(code).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('holds write_file until the console approves it', async () => {
    const client = await connectStdio(dirs.home);
    const call = client.callTool({ name: 'write_file', arguments: { path: 'stdio.txt', content: 'approved\n' } });
    const prompt = await bridge.waitForEvent('approvalRequested', (request) => request.arguments?.path === 'stdio.txt');
    expect(prompt.preview).toMatchObject({ kind: 'diff', path: 'stdio.txt', after: 'approved\n' });
    expect(existsSync(join(dirs.workspace, 'stdio.txt'))).toBe(false);
    const decided = await bridge.request('decideApproval', { approvalId: prompt.approvalId, decision: 'approve' });
    expect(decided.ok).toBe(true);
    const result = await call;
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ path: 'stdio.txt', created: true });
    expect(readFileSync(join(dirs.workspace, 'stdio.txt'), 'utf8')).toBe('approved\n');
  });

  it("passes the gate's progress on to an agent that asked for it, while its call waits for a person", async () => {
    const client = await connectStdio(dirs.home);
    const progress: { progress: number; message?: string }[] = [];
    const call = client.callTool({ name: 'write_file', arguments: { path: 'progress.txt', content: 'later\n' } }, undefined, { onprogress: (update) => progress.push(update) });
    const prompt = await bridge.waitForEvent('approvalRequested', (request) => request.arguments?.path === 'progress.txt');
    await waitUntil(() => progress.length > 0, 'the gate\'s first progress through the bridge');
    await bridge.request('decideApproval', { approvalId: prompt.approvalId, decision: 'approve' });
    expect((await call).isError).toBe(false);
    // The first news is that a person is asked, sent as the prompt opens (not the heartbeat, seconds later).
    expect(progress[0]).toMatchObject({ progress: 1, message: 'waiting for a person to approve it in the Toolgate console' });
  });

  it('passes a denial and its reason back to the agent', async () => {
    const client = await connectStdio(dirs.home);
    const call = client.callTool({ name: 'write_file', arguments: { path: 'denied.txt', content: 'nope' } });
    const prompt = await bridge.waitForEvent('approvalRequested', (request) => request.arguments?.path === 'denied.txt');
    await bridge.request('decideApproval', { approvalId: prompt.approvalId, decision: 'deny', reason: 'not in this sprint' });
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^EDENIED.*not in this sprint/);
    expect(existsSync(join(dirs.workspace, 'denied.txt'))).toBe(false);
  });
});

describe('stdio bridge with a short approval timeout', () => {
  let dirs: TempDirs;
  let serve: ServeProcess;

  beforeAll(async () => {
    dirs = makeTempDirs();
    serve = await spawnServe(dirs, ['--approval-timeout', '1']);
  });

  afterAll(async () => {
    await serve?.stop();
    dirs?.remove();
  });

  it('denies a write nobody approves once the prompt expires', async () => {
    const client = await connectStdio(dirs.home);
    // Denied by the prompt's expiry, as the reason says.
    const result = await client.callTool({ name: 'write_file', arguments: { path: 'expired.txt', content: 'late' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^EDENIED.*no one approved it in time/);
    expect(existsSync(join(dirs.workspace, 'expired.txt'))).toBe(false);
  });
});

describe('stdio bridge without a gate', () => {
  let dirs: TempDirs;
  beforeAll(() => {
    dirs = makeTempDirs();
  });
  afterAll(() => dirs?.remove());

  it('`toolgate mcp` says to start `toolgate serve` and exits 1 once its client leaves, printing nothing on the protocol stream', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp'], { cwd: ROOT, env: cliEnv(dirs.home), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end();
    const code = await new Promise<number | null>((resolveExit) => child.once('close', resolveExit));
    expect(code).toBe(1);
    expect(stderr).toMatch(/toolgate serve/);
    expect(stdout).toBe('');
  });
});
