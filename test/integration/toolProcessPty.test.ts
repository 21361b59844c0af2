/**
 * node-pty is loaded only where tools run: a shell a person approved still gets a terminal in the
 * real tool process, while the gate's own process never loads the addon.
 */
import { createRequire } from 'node:module';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, expect, it } from 'vitest';
import { connectMcp, startTestGate, type TestGate } from './helpers';

let gate: TestGate | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  await gate?.close();
  client = undefined;
  gate = undefined;
});

it('an approved shell_exec runs with its stdout on a terminal, and the gate process has not loaded node-pty', async () => {
  gate = await startTestGate();
  const { backend } = gate.running;
  backend.subscribe('approvalRequested', (request) => {
    void backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
  });
  client = await connectMcp(gate.running.mcpUrl, gate.token);
  const result = (await client.callTool({
    name: 'shell_exec',
    arguments: { command: 'if [ -t 1 ]; then echo stdout-is-a-terminal; else echo stdout-is-a-pipe; fi' },
  })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  expect(JSON.stringify(result.structuredContent)).toContain('stdout-is-a-terminal');
  // This test process is the gate's: the addon's module was never required here.
  expect(Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes('node-pty'))).toEqual([]);
});
