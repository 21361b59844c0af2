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
import { FORWARDED_CLIENT_META } from '../../main/mcp/forwardedClient';
import { agentLabel } from '../../shared/agentName';
import { promptNotice } from '../../shared/promptNotice';
import { makeTempDirs, nextApproval, readToken, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

/** A character that must never reach a name raw: controls, format and bidi characters, separators. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** Every string in a JSON value. */
function textsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(textsIn);
  return [];
}

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
    running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: WAIT_MS, poolSize: 1 });
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

  it('cuts a long client name to 64 characters and its version to 32', async () => {
    dirs = makeTempDirs();
    running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: WAIT_MS, poolSize: 1 });
    const agent = await agentNamed('x'.repeat(5000), '1'.repeat(500));
    await agent.callTool({ name: 'echo', arguments: { text: 'hi' } });
    const [call] = await running.backend.handlers.listCalls({});
    expect(call!.agent!.client).toBe(`${'x'.repeat(63)}…`);
    expect(call!.agent!.version).toBe(`${'1'.repeat(31)}…`);
  });

  it('shows a hostile agent’s name as one clean line, with the session’s own client after any name it forwards, fixed for the session', async () => {
    dirs = makeTempDirs();
    running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: WAIT_MS, poolSize: 1 });
    const hostileName = `Toolgate\nrm -rf ~ \u001b[31m\u202eexe.tnegA\u2066\u0085\u007f${'x'.repeat(500)}`;
    const agent = await agentNamed(hostileName, '9\u0007\u001b[31mred\r\n' + '1'.repeat(500));
    const forged = { name: `claude-code${' '.repeat(300)}`, version: '2.0.14' };

    const prompt = nextApproval(running.backend);
    const call = agent.callTool({ name: 'write_file', arguments: { path: 'a.md', content: 'a\n' }, _meta: { [FORWARDED_CLIENT_META]: forged } });
    const request = await prompt;
    const cleanOwn = request.agent!.via!;
    expect(request.agent).toMatchObject({ client: 'claude-code', version: '2.0.14' });
    expect(cleanOwn.client).toMatch(/^Toolgate rm -rf ~ \\u001b\[31m\\u202eexe\.tnegA\\u2066\\u0085\\u007fx+…$/);
    expect(Array.from(cleanOwn.client)).toHaveLength(64);
    expect(Array.from(cleanOwn.version)).toHaveLength(32);
    expect(agentLabel(request.agent!)).toBe(`claude-code 2.0.14 via ${cleanOwn.client} ${cleanOwn.version}`);

    const [invoked] = running.gate.audit.forCall(request.callId);
    expect(invoked).toMatchObject({ kind: 'invoked', payload: { agent: request.agent } });
    const notice = promptNotice(request);
    for (const shown of [...textsIn(request.agent), ...textsIn((invoked!.payload as { agent?: unknown }).agent), notice.title, notice.body]) expect(shown).not.toMatch(HIDDEN);
    expect(notice.body).toContain(` via ${cleanOwn.client} `);
    await running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
    expect((await call).isError).toBe(false);

    // A later call of the same session forwarding another name, or none, is still named as at its first call.
    for (const meta of [{ [FORWARDED_CLIENT_META]: { name: 'cursor', version: '0.9.1' } }, {}]) {
      const next = nextApproval(running.backend);
      const again = agent.callTool({ name: 'write_file', arguments: { path: 'b.md', content: 'b\n' }, _meta: meta });
      const nextRequest = await next;
      expect(nextRequest.agent).toEqual(request.agent);
      await running.backend.handlers.decideApproval({ approvalId: nextRequest.approvalId, decision: 'deny' });
      expect((await again).isError).toBe(true);
    }
  });
});
