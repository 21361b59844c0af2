/**
 * A prompt whose agent went away is withdrawn at once, in every way an agent reaches the gate: a
 * 2025 session's POST stream closing or the session's DELETE, a 2026-07-28 request's connection
 * closing, and the stdio bridge `toolgate mcp` stopping or being killed. The person's console is
 * told why ("the agent left"), an approve that races in is refused saying so, the audit records the
 * withdrawal with that reason, and the tool never runs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalOutcome, ApprovalRequest } from '../../shared/approval';
import type { CallSnapshot } from '../../shared/call';
import { BridgeClient, CLI, ROOT, cliEnv, nextApproval, startTestGate, type TestGate } from './helpers';
import { connectModernMcp } from './modernClient';
import { waitUntil } from '../fixtures/processes';

let gate: TestGate | undefined;
const closers: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await Promise.resolve(close()).catch(() => {});
  await gate?.close();
  gate = undefined;
});

/** A gate whose prompts would wait far longer than any test: only the agent leaving can end them. */
async function open(): Promise<TestGate> {
  gate = await startTestGate({ approvalTimeoutMs: 10 * 60_000 });
  return gate;
}

/** An agent's write_file call, waiting on its prompt; the call's own promise never fails the test. */
async function promptedWrite(started: TestGate, call: (args: { path: string; content: string }) => Promise<unknown>, path: string) {
  const prompt = nextApproval(started.running.backend);
  const resolved = new Promise<ApprovalOutcome>((resolveOutcome) => started.running.backend.subscribe('approvalResolved', resolveOutcome));
  void call({ path, content: 'written after the agent left' }).catch(() => {});
  const request = await prompt;
  return { request, resolved };
}

/**
 * What a person and the audit see of a prompt whose agent left: withdrawn for that reason (and
 * `how`), gone from the console, an approve refused naming it, the Live row and the audit saying
 * so, and the file never written.
 */
async function expectWithdrawnBecauseTheAgentLeft(started: TestGate, request: ApprovalRequest, resolved: Promise<ApprovalOutcome>, path: string, how: RegExp) {
  const outcome = await resolved;
  expect(outcome).toMatchObject({ approvalId: request.approvalId, outcome: 'withdrawn' });
  expect(outcome.reason).toMatch(/^the agent left: /);
  expect(outcome.reason).toMatch(how);
  const { backend } = started.running;
  expect(await backend.handlers.listApprovals({})).toEqual([]);
  await expect(backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' })).rejects.toThrow(
    /no longer waiting: it was withdrawn \(the agent left: .*\); its call did not run and cannot be approved/,
  );
  const records = started.running.gate.audit.forCall(request.callId);
  expect(records.find((record) => record.kind === 'approval-decided')?.payload).toMatchObject({ outcome: 'withdrawn', reason: outcome.reason });
  expect(records.at(-1)).toMatchObject({ kind: 'rejected' });
  expect(records.some((record) => record.kind === 'started' || record.kind === 'completed')).toBe(false);
  const row = (await backend.handlers.listCalls({})).find((call: CallSnapshot) => call.callId === request.callId);
  expect(row?.decidedBy).toEqual({ by: 'withdrawn', detail: `withdrawn: ${outcome.reason}` });
  expect(row?.error?.message).toContain('the agent left');
  expect(existsSync(join(started.dirs.workspace, path))).toBe(false);
}

/** The official 2025 client over Streamable HTTP, with its transport at hand. */
async function legacyAgent(started: TestGate): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'leaving-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(started.running.mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${started.token}` } },
  });
  await client.connect(transport);
  closers.push(() => client.close());
  return { client, transport };
}

/** `toolgate mcp` launched as an MCP client config does, with the official client on its stdio. */
async function stdioAgent(started: TestGate): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], env: cliEnv(started.dirs.home) as Record<string, string>, cwd: ROOT, stderr: 'pipe' });
  const client = new Client({ name: 'stdio-leaving-agent', version: '1.0.0' });
  await client.connect(transport);
  closers.push(() => client.close());
  return { client, transport };
}

describe('a 2025 agent that leaves while its call waits for a person', () => {
  it('whose connection closes (its process exited without cancelling): the prompt is withdrawn at once and cannot be approved', async () => {
    const started = await open();
    const { client } = await legacyAgent(started);
    const { request, resolved } = await promptedWrite(started, (args) => client.callTool({ name: 'write_file', arguments: args }), 'gone.txt');
    // Closing the client drops its connections without a notifications/cancelled: as a process that exits.
    await client.close();
    await expectWithdrawnBecauseTheAgentLeft(started, request, resolved, 'gone.txt', /connection to the gate closed/);
  });

  it('that ends its session (DELETE) while the call waits: the prompt is withdrawn saying so', async () => {
    const started = await open();
    const { client, transport } = await legacyAgent(started);
    const { request, resolved } = await promptedWrite(started, (args) => client.callTool({ name: 'write_file', arguments: args }), 'ended.txt');
    await transport.terminateSession();
    await expectWithdrawnBecauseTheAgentLeft(started, request, resolved, 'ended.txt', /ended its MCP session/);
  });

  it('the console is told over its bridge: the outcome names the agent leaving, and a late approve is refused with why', async () => {
    const started = await open();
    const bridge = await BridgeClient.open(started.running.port, started.consoleToken);
    closers.push(() => bridge.close());
    const { client } = await legacyAgent(started);
    const { request } = await promptedWrite(started, (args) => client.callTool({ name: 'write_file', arguments: args }), 'late.txt');
    await client.close();
    const outcome = await bridge.waitForEvent('approvalResolved', (payload: ApprovalOutcome) => payload.approvalId === request.approvalId);
    expect(outcome).toMatchObject({ outcome: 'withdrawn', reason: expect.stringMatching(/^the agent left: /) });
    const updated = await bridge.waitForEvent('callUpdated', (call: CallSnapshot) => call.callId === request.callId && call.decidedBy?.by === 'withdrawn');
    expect(updated.decidedBy.detail).toMatch(/^withdrawn: the agent left: /);
    const approve = (await bridge.request('decideApproval', { approvalId: request.approvalId, decision: 'approve' })) as { ok: boolean; error?: { code: string; message: string } };
    expect(approve).toMatchObject({ ok: false, error: { code: 'ENOTFOUND', message: expect.stringMatching(/withdrawn \(the agent left: .*cannot be approved/) } });
    expect(existsSync(join(started.dirs.workspace, 'late.txt'))).toBe(false);
  });
});

describe('an agent that leaves while its approved call runs', () => {
  it('its tool is stopped, not left running for nobody', async () => {
    gate = await startTestGate({ policyRules: ['shell_exec(sleep *)'] });
    const started = gate;
    const { client } = await legacyAgent(started);
    const running = new Promise<CallSnapshot>((resolveRunning) =>
      started.running.backend.subscribe('callUpdated', (call) => {
        if (call.tool === 'shell_exec' && call.status === 'running') resolveRunning(call);
      }),
    );
    void client.callTool({ name: 'shell_exec', arguments: { command: 'sleep 600' } }).catch(() => {});
    const { callId } = await running;
    await client.close();
    // `sleep 600` outlasts the test: only the agent leaving, or the shell's own deadline, ends the call
    // before it, and the record below tells which.
    await waitUntil(
      () => started.running.gate.audit.forCall(callId).some((record) => record.kind === 'failed' || record.kind === 'completed'),
      'the call to end after its agent left',
    );
    const last = started.running.gate.audit.forCall(callId).at(-1);
    // Stopped in its sandbox, or withdrawn before the sandbox got it: either way, not by its deadline.
    expect(last).toMatchObject({ kind: 'failed', payload: { error: { code: 'EDENIED', message: expect.stringMatching(/withdrawn.*(its process was killed|it did not run)$/) } } });
  });
});

describe('a 2026-07-28 agent that leaves while its call waits for a person', () => {
  it('whose connection closes: the prompt is withdrawn because the agent left, not as a cancel', async () => {
    const started = await open();
    const client = await connectModernMcp(started.running.mcpUrl, started.token);
    closers.push(() => client.close());
    expect(client.getProtocolEra()).toBe('modern');
    const { request, resolved } = await promptedWrite(started, (args) => client.callTool({ name: 'write_file', arguments: args }), 'modern.txt');
    await client.close();
    await expectWithdrawnBecauseTheAgentLeft(started, request, resolved, 'modern.txt', /connection to the gate closed/);
  });
});

describe('an agent behind the stdio bridge that leaves while its call waits for a person', () => {
  it('the bridge killed outright (SIGKILL): the gate notices its connection close and withdraws the prompt', async () => {
    const started = await open();
    const { client, transport } = await stdioAgent(started);
    const { request, resolved } = await promptedWrite(started, (args) => client.callTool({ name: 'write_file', arguments: args }), 'killed.txt');
    process.kill(transport.pid!, 'SIGKILL');
    await expectWithdrawnBecauseTheAgentLeft(started, request, resolved, 'killed.txt', /connection to the gate closed/);
  });

  it('the agent closing the bridge (its stdin ends): the bridge tells the gate the agent left', async () => {
    const started = await open();
    const { client } = await stdioAgent(started);
    const { request, resolved } = await promptedWrite(started, (args) => client.callTool({ name: 'write_file', arguments: args }), 'closed.txt');
    await client.close();
    await expectWithdrawnBecauseTheAgentLeft(started, request, resolved, 'closed.txt', /stdio bridge closed|ended its MCP session|connection to the gate closed/);
  });
});
