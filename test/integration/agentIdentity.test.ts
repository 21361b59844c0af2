/**
 * Who is asking: each MCP session's client name and version (from its `initialize`) and the time
 * the session began travel with its calls, through a real gate and the official MCP client. The
 * prompt, the Live view's call, the audit's `invoked` record and the Permissions entry of a session
 * grant all name the agent; the grant holds for that session alone.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { makeTempDirs, nextApproval, readToken, type TempDirs } from './helpers';

let dirs: TempDirs | undefined;
let running: RunningGate | undefined;
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await running?.close();
  dirs?.remove();
  running = undefined;
  dirs = undefined;
});

/** An agent whose MCP client introduces itself as `name` `version`. */
async function agentNamed(name: string, version: string): Promise<Client> {
  const client = new Client({ name, version });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(running!.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${readToken(dirs!.home)}` } } }),
  );
  clients.push(client);
  return client;
}

describe('who is asking', () => {
  it('names the client and its session start on the prompt, in Live, in the audit and on a session grant', async () => {
    dirs = makeTempDirs();
    running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: 30_000, poolSize: 1 });
    const { handlers } = running.backend;
    const connectedAt = Date.now();
    const claude = await agentNamed('claude-code', '2.1.0');
    const cursor = await agentNamed('cursor', '0.9.1');

    const prompt = nextApproval(running.backend);
    const call = claude.callTool({ name: 'write_file', arguments: { path: 'a.md', content: 'a\n' } });
    const request = await prompt;
    expect(request.agent).toMatchObject({ client: 'claude-code', version: '2.1.0' });
    const startedAt = Date.parse(request.agent!.sessionStartedAt);
    expect(startedAt).toBeGreaterThanOrEqual(connectedAt - 1000);
    expect(startedAt).toBeLessThanOrEqual(Date.parse(request.requestedAt));

    const live = (await handlers.listCalls({})).find((snapshot) => snapshot.callId === request.callId);
    expect(live).toMatchObject({ agentSession: request.agentSession, agent: request.agent });
    const [invoked] = running.gate.audit.forCall(request.callId);
    expect(invoked).toMatchObject({ kind: 'invoked', payload: { agentSession: request.agentSession, agent: request.agent } });

    await handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve', scope: { kind: 'session' }, rules: ['write_file(a.md)'] });
    expect((await call).isError).toBe(false);
    const [grant] = (await handlers.listPermissions({})).filter((permission) => permission.layer === 'session');
    expect(grant!.scope).toBe(`agent session ${request.agentSession!.slice(0, 8)} (claude-code 2.1.0, session since ${request.agent!.sessionStartedAt})`);

    // The grant is claude-code's session's alone: cursor's same call is asked, and named as cursor's.
    const cursorPrompt = nextApproval(running.backend);
    const cursorCall = cursor.callTool({ name: 'write_file', arguments: { path: 'a.md', content: 'b\n' } });
    const cursorRequest = await cursorPrompt;
    expect(cursorRequest.agent).toMatchObject({ client: 'cursor', version: '0.9.1' });
    expect(cursorRequest.agentSession).not.toBe(request.agentSession);
    await handlers.decideApproval({ approvalId: cursorRequest.approvalId, decision: 'deny' });
    expect((await cursorCall).isError).toBe(true);
  });

  it('cuts a long client name to 200 characters and its version to 100', async () => {
    dirs = makeTempDirs();
    running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: 30_000, poolSize: 1 });
    const agent = await agentNamed('x'.repeat(5000), '1'.repeat(500));
    await agent.callTool({ name: 'echo', arguments: { text: 'hi' } });
    const [call] = await running.backend.handlers.listCalls({});
    expect(call!.agent!.client).toBe('x'.repeat(200));
    expect(call!.agent!.version).toBe('1'.repeat(100));
  });
});
