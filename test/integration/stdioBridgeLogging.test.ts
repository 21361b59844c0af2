/**
 * MCP logging through `toolgate mcp`, the stdio bridge: the agent's level reaches the running gate,
 * and its calls' log lines come back to it over stdio as notifications/message.
 */
import { resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdioBridge, makeTempDirs, spawnServe, type ServeProcess, type TempDirs } from './helpers';

const LOGGING_TOOLS = resolve('test/fixtures/tools/logging.mjs');

describe('MCP logging through the stdio bridge', () => {
  let dirs: TempDirs;
  let serve: ServeProcess;
  let client: Client;

  beforeAll(async () => {
    dirs = makeTempDirs();
    serve = await spawnServe(dirs, ['--tools', LOGGING_TOOLS]);
    client = await connectStdioBridge(dirs.home, 'stdio-logging-test');
  });

  afterAll(async () => {
    await client?.close();
    await serve?.stop();
    dirs?.remove();
  });

  it('declares logging, and a tool\'s stderr line reaches the agent at its level and not below it', async () => {
    expect(client.getServerCapabilities()?.logging).toEqual({});
    const lines: Array<LoggingMessageNotification['params']> = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void lines.push(notification.params));
    await client.setLoggingLevel('info');
    const result = await client.callTool({ name: 'log_stderr', arguments: { lines: ['through the bridge'] } });
    expect(result.isError).toBe(false);
    expect(lines).toEqual([{ level: 'info', logger: 'log_stderr', data: 'through the bridge' }]);
    await client.setLoggingLevel('error');
    await client.callTool({ name: 'log_stderr', arguments: { lines: ['not for an error-level agent'] } });
    expect(lines.map((line) => line.data)).toEqual(['through the bridge']);
  });
});
