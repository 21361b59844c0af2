/**
 * Upstream servers that speak only the MCP 2026-07-28 revision, behind a real gate: one reached
 * over Streamable HTTP on loopback, one started over stdio in its sandbox. Agents of either era
 * (the v1 client in a 2025 session, the v2 client in 2026-07-28) list their tools as server__tool,
 * their calls go through the pipeline and reach the server, and a change of a server's list
 * reaches the agents. The 2025-only servers (server-everything, server-filesystem): upstreamServers.test.ts.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpstreamOverview } from '../../shared/upstream';
import { serversCommand } from '../../main/cli/serverCommands';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { startModernHttpServer, type LoopbackServer } from '../upstream/modernHttpServer';
import { TEST_READABLE } from '../upstream/helpers';
import { callIdOf, connectMcp, makeTempDirs, readToken, textOf, type TempDirs } from './helpers';
import { connectModernMcp } from './modernClient';
import { WAIT_MS } from '../fixtures/processes';

const MODERN_FIXTURE = resolve('test/fixtures/modernUpstreamServer.mjs');

let dirs: TempDirs;
let remote: LoopbackServer;
let running: RunningGate;
let legacyAgent: Client;
let modernAgent: ModernClient;

async function overview(): Promise<UpstreamOverview> {
  return running.backend.handlers.upstreamServers({});
}

/** Polls until `check` holds, or fails after WAIT_MS saying what it waited for. */
async function until<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
}

beforeAll(async () => {
  dirs = makeTempDirs();
  remote = await startModernHttpServer('reject');
  writeFileSync(
    join(dirs.home, 'servers.json'),
    JSON.stringify({
      mcpServers: {
        remote: { url: remote.url },
        local: { command: process.execPath, args: [MODERN_FIXTURE, 'modern'], sandbox: { readable: TEST_READABLE } },
      },
    }),
  );
  running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: WAIT_MS, poolSize: 1 });
  for (const server of (await overview()).servers) await running.backend.handlers.approveUpstreamLaunch({ server: server.name, launchHash: server.launchHash });
  const ready = await until('servers ready', overview, (view) => view.servers.every((server) => server.status === 'ready'));
  // Trusted as they are, so their calls run without a person asked (what asking looks like: upstreamServers.test.ts).
  for (const server of ready.servers) {
    await running.backend.handlers.reviewUpstream({
      server: server.name,
      tools: server.tools.map((tool) => ({ name: tool.name, definitionHash: tool.definitionHash, class: { tier: 'SAFE' as const, sideEffects: [] } })),
    });
  }
  legacyAgent = await connectMcp(running.mcpUrl, readToken(dirs.home));
  modernAgent = await connectModernMcp(running.mcpUrl, readToken(dirs.home));
});

afterAll(async () => {
  await legacyAgent?.close();
  await modernAgent?.close();
  await running?.close();
  await remote?.close();
  dirs?.remove();
});

describe('upstream servers that speak only MCP 2026-07-28, behind the gate', () => {
  it('are spoken to in 2026-07-28, as the console and `toolgate servers list` say', async () => {
    const servers = (await overview()).servers;
    expect(servers.map((server) => [server.name, server.transport, server.status, server.protocol])).toEqual([
      ['remote', 'http', 'ready', '2026-07-28'],
      ['local', 'stdio', 'ready', '2026-07-28'],
    ]);
    expect(remote.methods).not.toContain('initialize');
    let printed = '';
    expect(await serversCommand(['list'], { home: dirs.home, out: (text) => (printed += text), err: (text) => (printed += text) })).toBe(0);
    expect(printed).toMatch(/^ {2}remote +http .*\[ready, 6 tools, MCP 2026-07-28\]$/m);
    expect(printed).toMatch(/^ {2}local +stdio .*\[ready, 6 tools, MCP 2026-07-28: runs (in bubblewrap|without a sandbox)[^\]]*\]$/m);
  });

  it('have their tools listed as server__tool and called through the pipeline by a 2025 agent and a 2026-07-28 agent alike', async () => {
    for (const agent of [legacyAgent, modernAgent]) {
      const names = (await agent.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['remote__echo', 'remote__add', 'local__echo', 'local__add']));
      for (const server of ['remote', 'local']) {
        const result = await agent.callTool({ name: `${server}__echo`, arguments: { text: `to ${server}` } });
        expect(result.isError).toBeFalsy();
        expect(textOf(result)).toBe(`to ${server}`);
        const kinds = running.gate.audit.forCall(callIdOf(result)).map((record) => record.kind);
        expect(kinds).toEqual(['invoked', 'capability', 'policy', 'started', 'completed']);
      }
    }
    expect(textOf(await legacyAgent.callTool({ name: 'remote__add', arguments: { a: 40, b: 2 } }))).toBe('42');
  });

  it('refuse arguments that break the server\'s own schema at the gate', async () => {
    const result = await legacyAgent.callTool({ name: 'remote__add', arguments: { a: 'forty', b: 2 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^EVALIDATION: invalid arguments for remote__add: .*\/a/);
  });

  it('have a change of their list reach the agents (heard on the upstream\'s subscriptions/listen stream)', async () => {
    for (const server of ['remote', 'local']) {
      expect(textOf(await legacyAgent.callTool({ name: `${server}__grow`, arguments: {} }))).toBe('grown');
      // The new tool waits for review in the console; agents see it once the person trusted it.
      const shown = await until(`${server}'s added tool shown`, overview, (view) => view.servers.some((entry) => entry.name === server && entry.tools.some((tool) => tool.name === 'added')));
      const added = shown.servers.find((entry) => entry.name === server)!.tools.find((tool) => tool.name === 'added')!;
      expect(added.pin).toBe('unreviewed');
      expect((await modernAgent.listTools()).tools.map((tool) => tool.name)).not.toContain(`${server}__added`);
      await running.backend.handlers.reviewUpstream({ server, tools: [{ name: 'added', definitionHash: added.definitionHash, class: { tier: 'SAFE', sideEffects: [] } }] });
      await until(`${server}__added listed`, async () => (await modernAgent.listTools()).tools.map((tool) => tool.name), (names) => names.includes(`${server}__added`));
      expect((await legacyAgent.listTools()).tools.map((tool) => tool.name)).toContain(`${server}__added`);
    }
  });
});
