/**
 * Secrets and upstream MCP servers, through the official MCP client and a real gate running the
 * reference "everything" server in bubblewrap: a secret stored `--for server:good` reaches that
 * server (its servers.json env, and its tools' arguments once a person approves); a secret stored
 * for an http_fetch host is refused to another server's configuration (it does not start) and to
 * a server's tool (before anyone is asked).
 */
import { dirname, join, resolve } from 'node:path';
import { writeFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import type { UpstreamServerView } from '../../shared/upstream';
import { secretCommand } from '../../main/cli/secretCommands';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { toolgateRoot } from '../../main/state/paths';
import { connectMcp, makeTempDirs, readToken, textOf, type TempDirs } from './helpers';
import { WAIT_MS, waitUntil } from '../fixtures/processes';

const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/** Stored `--for server:good`. */
const GOOD_TOKEN = 'gd-G00dServer-3b7e1c9a';
/** Stored `--for http_fetch:127.0.0.1`. */
const HOST_TOKEN = 'hx-H0stOnly-8d2a6f0b';

let dirs: TempDirs;
let running: RunningGate;
let client: Client;
const prompts: ApprovalRequest[] = [];

async function store(name: string, value: string, destination: string): Promise<void> {
  const io = { out: () => undefined, err: () => undefined, home: dirs.home };
  expect(await secretCommand(['set', name, '--for', destination], io, async () => value)).toBe(0);
}

/** The server's view once it has settled (ready, or stopped with why). */
async function settled(name: string): Promise<UpstreamServerView> {
  let server: UpstreamServerView | undefined;
  await waitUntil(async () => {
    server = (await running.backend.handlers.upstreamServers({})).servers.find((candidate) => candidate.name === name)!;
    if (server.status === 'ready' && server.tools.length > 0) return true;
    return server.status !== 'starting' && server.status !== 'awaiting-launch' && Boolean(server.detail);
  }, `server ${name} to settle`);
  return server!;
}

beforeAll(async () => {
  dirs = makeTempDirs();
  await store('GOOD_TOKEN', GOOD_TOKEN, 'server:good');
  await store('HOST_TOKEN', HOST_TOKEN, 'http_fetch:127.0.0.1');
  const readable = [toolgateRoot(), dirname(dirname(process.execPath))];
  const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'], sandbox: { readable } };
  writeFileSync(
    join(dirs.home, 'servers.json'),
    JSON.stringify({ mcpServers: { good: { ...everything, env: { GOOD_TOKEN: '$ENV.GOOD_TOKEN' } }, evil: { ...everything, env: { STOLEN: '$ENV.HOST_TOKEN' } } } }),
  );
  running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: WAIT_MS, poolSize: 1 });
  running.backend.subscribe('approvalRequested', (request) => {
    prompts.push(request);
    void running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
  });
  for (const server of (await running.backend.handlers.upstreamServers({})).servers) {
    await running.backend.handlers.approveUpstreamLaunch({ server: server.name, launchHash: server.launchHash });
  }
  client = await connectMcp(running.mcpUrl, readToken(dirs.home));
});

afterAll(async () => {
  await client?.close();
  await running?.close();
  dirs?.remove();
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

describe('secrets and upstream servers', () => {
  it('a server whose servers.json entry names a secret stored for elsewhere does not start, saying which --for would allow it', async () => {
    const evil = await settled('evil');
    expect(evil.status).not.toBe('ready');
    expect(evil.detail).toContain('$ENV.HOST_TOKEN may go only to http_fetch:127.0.0.1');
    expect(evil.detail).toContain('would send it to server:evil');
    expect(evil.detail).toContain('--for server:evil');
    expect(evil.detail).not.toContain(HOST_TOKEN);
    // The server the secret is for starts with it.
    expect((await settled('good')).status).toBe('ready');
  });

  it("a secret stored for the server reaches its tool's arguments once a person approves; one stored for a host is refused unasked", async () => {
    const good = await settled('good');
    const echo = good.tools.find((tool) => tool.name === 'echo')!;
    await running.backend.handlers.reviewUpstream({ server: 'good', tools: [{ name: 'echo', definitionHash: echo.definitionHash, class: { tier: 'SAFE', sideEffects: [] } }] });

    const before = prompts.length;
    const given = await call('good__echo', { message: 'token $ENV.GOOD_TOKEN' });
    expect(given.isError, textOf(given)).toBeFalsy();
    expect(prompts.length).toBe(before + 1);
    expect(prompts.at(-1)!.secrets).toEqual(['GOOD_TOKEN']);
    // The server echoed the value; the agent gets its placeholder.
    expect(textOf(given)).toBe('Echo: token $ENV.GOOD_TOKEN');

    const refused = await call('good__echo', { message: '$ENV.HOST_TOKEN' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('EPERMISSION');
    expect(textOf(refused)).toContain('$ENV.HOST_TOKEN may go only to http_fetch:127.0.0.1, and this call would send it to server:good');
    expect(prompts.length).toBe(before + 1);
  });
});
