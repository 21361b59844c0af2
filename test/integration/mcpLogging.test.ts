/**
 * MCP logging through the real gate: a 2025 agent (the official v1 client) sets its level with
 * logging/setLevel and gets its calls' log lines (a tool process's stderr, an upstream server's
 * notifications/message) as notifications/message, at its level, secrets redacted, bounded per
 * call; a 2026-07-28 agent (the v2 client) gets the same lines in its result's `_meta`.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { EmptyResultSchema, LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { CALL_LOG_META, LOG_LEVEL_META, MAX_LOG_BYTES_PER_CALL, MAX_LOG_LINE_CHARS, MAX_LOG_LINES_PER_CALL } from '../../main/mcp/agentLog';
import { writeSecretsFile } from '../../main/secrets/secretsFile';
import { statePaths, toolgateRoot } from '../../main/state/paths';
import { connectMcp, makeTempDirs, readToken, textOf, type TempDirs } from './helpers';
import { connectModernMcp } from './modernClient';
import { WAIT_MS, waitUntil } from '../fixtures/processes';

const LOGGING_TOOLS = resolve('test/fixtures/tools/logging.mjs');
const FIXTURE = resolve('test/fixtures/upstreamServer.mjs');
/** A stored secret: every tool may be given it as $ENV.API_TOKEN, and no agent may ever read it. */
const STORED = 'stored-token-7f3a9c41d2e8';

type LogParams = LoggingMessageNotification['params'];

let dirs: TempDirs;
let running: RunningGate;
let token: string;
const clients: Array<{ close(): Promise<void> }> = [];

/** A 2025 agent that keeps every notifications/message it is sent. */
async function loggingAgent(): Promise<{ client: Client; lines: LogParams[] }> {
  const client = await connectMcp(running.mcpUrl, token);
  clients.push(client);
  const lines: LogParams[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void lines.push(notification.params));
  return { client, lines };
}

beforeAll(async () => {
  dirs = makeTempDirs();
  writeSecretsFile(statePaths(dirs.home).secrets, { API_TOKEN: STORED });
  const readable = [toolgateRoot(), dirname(dirname(process.execPath))];
  writeFileSync(join(dirs.home, 'servers.json'), JSON.stringify({ mcpServers: { talk: { command: process.execPath, args: [FIXTURE, 'logs'], sandbox: { readable } } } }));
  running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: WAIT_MS, poolSize: 1, toolModules: [LOGGING_TOOLS] });
  token = readToken(dirs.home);
  // The person approves every prompt (a call with a secret asks).
  running.backend.subscribe('approvalRequested', (request) => void running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' }));
  const [server] = (await running.backend.handlers.upstreamServers({})).servers;
  await running.backend.handlers.approveUpstreamLaunch({ server: server!.name, launchHash: server!.launchHash });
  for (const deadline = Date.now() + WAIT_MS; ; await new Promise((wait) => setTimeout(wait, 100))) {
    const [talk] = (await running.backend.handlers.upstreamServers({})).servers;
    if (talk!.status === 'ready' && talk!.tools.length > 0) {
      const tools = talk!.tools.map((tool) => ({ name: tool.name, definitionHash: tool.definitionHash, class: { tier: 'SAFE' as const, sideEffects: [] } }));
      await running.backend.handlers.reviewUpstream({ server: talk!.name, tools });
      break;
    }
    if (Date.now() > deadline) throw new Error(`the logging fixture server is not ready: ${talk!.status} ${talk!.detail ?? ''}`);
  }
});

afterAll(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  await running?.close();
  dirs?.remove();
});

describe('MCP logging for a 2025 agent', () => {
  it('declares the logging capability, accepts logging/setLevel for each level MCP names, and refuses one it does not', async () => {
    const { client } = await loggingAgent();
    expect(client.getServerCapabilities()?.logging).toEqual({});
    for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const) {
      await expect(client.setLoggingLevel(level)).resolves.toEqual({});
    }
    await expect(client.request({ method: 'logging/setLevel', params: { level: 'loud' } }, EmptyResultSchema)).rejects.toThrow(/-32602: level must be one of debug, info, notice, warning, error, critical, alert, emergency; it was "loud"/);
  });

  it("a tool's stderr line reaches the agent that called it, at its level and not below it, and no other session", async () => {
    const caller = await loggingAgent();
    const bystander = await loggingAgent();
    await caller.client.setLoggingLevel('info');
    const result = await caller.client.callTool({ name: 'log_stderr', arguments: { lines: ['building the index'] } });
    expect(result.isError).toBe(false);
    expect(caller.lines).toEqual([{ level: 'info', logger: 'log_stderr', data: 'building the index' }]);

    // Above a stderr line's level (info), the agent hears nothing of it.
    await caller.client.setLoggingLevel('warning');
    await caller.client.callTool({ name: 'log_stderr', arguments: { lines: ['second pass'] } });
    expect(caller.lines.map((line) => line.data)).toEqual(['building the index']);
    expect(bystander.lines).toEqual([]);
  });

  it("a line a tool left open ends with its call: it reaches that call's agent, and the next call's first line stays its own", async () => {
    const first = await loggingAgent();
    const second = await loggingAgent();
    await first.client.callTool({ name: 'log_stderr', arguments: { lines: ['left open by the first agent'], newline: false } });
    await second.client.callTool({ name: 'log_stderr', arguments: { lines: ['the second agent'] } });
    expect(second.lines).toEqual([{ level: 'info', logger: 'log_stderr', data: 'the second agent' }]);
    expect(first.lines).toEqual([{ level: 'info', logger: 'log_stderr', data: 'left open by the first agent' }]);
  });

  it('before any setLevel, every line is sent (the SDK\'s default)', async () => {
    const agent = await loggingAgent();
    await agent.client.callTool({ name: 'log_stderr', arguments: { lines: ['unasked'] } });
    expect(agent.lines).toEqual([{ level: 'info', logger: 'log_stderr', data: 'unasked' }]);
  });

  it('a secret the tool wrote to stderr reaches the agent as its placeholder', async () => {
    const agent = await loggingAgent();
    const result = await agent.client.callTool({ name: 'log_stderr', arguments: { lines: ['using $ENV.API_TOKEN now'] } });
    expect(result.isError).toBe(false);
    expect(agent.lines).toEqual([{ level: 'info', logger: 'log_stderr', data: 'using $ENV.API_TOKEN now' }]);
    expect(JSON.stringify(agent.lines)).not.toContain(STORED);
  });

  it('a flood of stderr lines is cut at the per-call bound, the last message counts every line dropped, and none spills into the next call', async () => {
    const agent = await loggingAgent();
    const next = await loggingAgent();
    // Far more than a pipe holds: the flood is still being read when the tool has answered.
    const repeat = 100_000;
    const result = await agent.client.callTool({ name: 'log_stderr', arguments: { lines: ['again'], repeat } });
    expect(result.structuredContent).toEqual({ wrote: repeat });
    expect(agent.lines).toHaveLength(MAX_LOG_LINES_PER_CALL + 1);
    expect(agent.lines.slice(0, -1).every((line) => line.data === 'again')).toBe(true);
    expect(agent.lines.at(-1)).toMatchObject({ level: 'info', logger: 'toolgate', data: expect.stringMatching(`^… ${repeat - MAX_LOG_LINES_PER_CALL} more lines dropped`) });
    await next.client.callTool({ name: 'log_stderr', arguments: { lines: ['my own line'] } });
    expect(next.lines).toEqual([{ level: 'info', logger: 'log_stderr', data: 'my own line' }]);
  });

  it('long lines are cut, and a call sends at most its bytes of log however few lines that is', async () => {
    const agent = await loggingAgent();
    const long = 'y'.repeat(MAX_LOG_LINE_CHARS + 500);
    await agent.client.callTool({ name: 'log_stderr', arguments: { lines: [long] } });
    expect(agent.lines).toEqual([{ level: 'info', logger: 'log_stderr', data: `${long.slice(0, MAX_LOG_LINE_CHARS)}… [line cut]` }]);

    const wide = 'w'.repeat(3000);
    const repeat = 40;
    const fitting = Math.floor(MAX_LOG_BYTES_PER_CALL / JSON.stringify(wide).length);
    agent.lines.length = 0;
    await agent.client.callTool({ name: 'log_stderr', arguments: { lines: [wide], repeat } });
    expect(agent.lines.slice(0, -1)).toEqual(Array.from({ length: fitting }, () => ({ level: 'info', logger: 'log_stderr', data: wide })));
    expect(agent.lines.at(-1)?.data).toMatch(new RegExp(`^… ${repeat - fitting} more lines dropped`));
  });

  it("an upstream server's notifications/message reaches the calling agent at its level, redacted", async () => {
    const agent = await loggingAgent();
    await agent.client.setLoggingLevel('notice');
    const lines = [
      { level: 'debug', text: 'connecting' },
      { level: 'info', text: 'connected' },
      { level: 'error', text: `refused key ${STORED}` },
    ];
    const result = await agent.client.callTool({ name: 'talk__say', arguments: { lines } });
    expect(result.isError).toBe(false);
    expect(agent.lines).toEqual([{ level: 'error', logger: 'talk/fixture', data: 'refused key $ENV.API_TOKEN' }]);
  });

  it("an upstream server's line sent while calls of two agents run on it reaches neither: it cannot be told whose it is", async () => {
    const holder = await loggingAgent();
    const other = await loggingAgent();
    const held = holder.client.callTool({ name: 'talk__hold', arguments: {} });
    // The server's own "holding" line: the holder's call is under way on it.
    await waitUntil(() => holder.lines.length > 0, "the server's holding line");
    expect(holder.lines).toEqual([{ level: 'info', logger: 'talk/fixture', data: 'holding' }]);
    await other.client.callTool({ name: 'talk__say', arguments: { lines: [{ level: 'error', text: 'the other agent\'s work' }] } });
    await other.client.callTool({ name: 'talk__release', arguments: {} });
    expect(textOf(await held)).toBe('released');
    expect(other.lines).toEqual([]);
    expect(holder.lines.map((line) => line.data)).toEqual(['holding']);
  });
});

describe('MCP logging for a 2026-07-28 agent', () => {
  it("gets its call's lines in the result's _meta, at the level it names there, redacted", async () => {
    const client = await connectModernMcp(running.mcpUrl, token);
    clients.push(client);
    expect(client.getProtocolEra()).toBe('modern');
    const all = await client.callTool({ name: 'log_stderr', arguments: { lines: ['step one', 'key $ENV.API_TOKEN'] } });
    expect(all._meta?.[CALL_LOG_META]).toEqual([
      { level: 'info', logger: 'log_stderr', data: 'step one' },
      { level: 'info', logger: 'log_stderr', data: 'key $ENV.API_TOKEN' },
    ]);
    expect(JSON.stringify(all)).not.toContain(STORED);
    const quiet = await client.callTool({ name: 'log_stderr', arguments: { lines: ['step two'] }, _meta: { [LOG_LEVEL_META]: 'warning' } });
    expect(quiet.isError).toBe(false);
    expect(quiet._meta?.[CALL_LOG_META]).toBeUndefined();
    await expect(client.callTool({ name: 'log_stderr', arguments: { lines: ['x'] }, _meta: { [LOG_LEVEL_META]: 'loud' } })).rejects.toThrow(/must be one of debug, info/);
  });
});
