/**
 * Agents that speak the MCP 2026-07-28 revision (stateless: no initialize, no session, each request
 * carrying its client's identity in its `_meta` envelope) against a real gate, with the official v2
 * client, beside a 2025 client on the same /mcp endpoint: the same tools, the same results, the
 * same approvals. The door (token, body bounds) for such requests: mcpModernDoor.test.ts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { auditKinds, callIdOf, connectMcp, nextApproval, startTestGate, textOf, type TestGate } from './helpers';
import { connectModernMcp } from './modernClient';
import { WAIT_MS } from '../fixtures/processes';

let gate: TestGate | undefined;
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close().catch(() => {})));
  await gate?.close();
  gate = undefined;
});

async function open(options: { approvalTimeoutMs?: number } = {}): Promise<TestGate> {
  gate = await startTestGate(options);
  return gate;
}

/** The v2 client, negotiating the revision with `server/discover` as an agent would ('auto'), and having got 2026-07-28. */
async function modernAgent(name = 'modern-agent', version = '1.2.3'): Promise<ModernClient> {
  const client = await connectModernMcp(gate!.running.mcpUrl, gate!.token, name, version);
  closers.push(() => client.close());
  // 'auto' falls back to a 2025 session when the gate does not answer server/discover as 2026-07-28.
  expect(client.getProtocolEra(), 'the v2 client negotiated the 2026-07-28 revision').toBe('modern');
  return client;
}

async function legacyAgent(): Promise<LegacyClient> {
  const client = await connectMcp(gate!.running.mcpUrl, gate!.token);
  closers.push(() => client.close());
  return client;
}

/** A result as the agent sees it, with what differs from call to call (ids, hashes of timing) left out. */
function shapeOf(result: Record<string, unknown>) {
  const meta = (result._meta ?? {}) as Record<string, unknown>;
  return {
    content: result.content,
    structuredContent: result.structuredContent,
    isError: result.isError,
    metaKeys: Object.keys(meta).filter((key) => key.startsWith('toolgate/')).sort(),
    responseHash: meta['toolgate/responseHash'],
  };
}

describe('a 2026-07-28 agent', () => {
  it('negotiates the revision, lists the same tools as a 2025 session, and gets the same echo result', async () => {
    await open();
    const modern = await modernAgent();
    const legacy = await legacyAgent();
    expect(modern.getProtocolEra()).toBe('modern');
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(legacy.getServerVersion()?.name).toBe('toolgate');

    const modernTools = (await modern.listTools()).tools;
    const legacyTools = (await legacy.listTools()).tools;
    expect(modernTools.map((tool) => tool.name)).toEqual(legacyTools.map((tool) => tool.name));
    expect(modernTools.find((tool) => tool.name === 'echo')).toMatchObject({
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      _meta: { 'toolgate/tier': 'SAFE' },
    });
    expect(modernTools.every((tool) => tool.outputSchema === undefined)).toBe(true);

    const fromModern = (await modern.callTool({ name: 'echo', arguments: { text: 'héllo, gate' } })) as Record<string, unknown>;
    const fromLegacy = (await legacy.callTool({ name: 'echo', arguments: { text: 'héllo, gate' } })) as Record<string, unknown>;
    expect(fromModern.isError).toBe(false);
    expect(fromModern.structuredContent).toEqual({ text: 'héllo, gate' });
    expect(shapeOf(fromModern)).toEqual(shapeOf(fromLegacy));
    expect(callIdOf(fromModern)).not.toBe(callIdOf(fromLegacy));
    expect(auditKinds(gate!.running.gate.audit.forCall(callIdOf(fromModern)))).toEqual(auditKinds(gate!.running.gate.audit.forCall(callIdOf(fromLegacy))));
  });
});

describe('a changed tool list', () => {
  it('reaches a 2026-07-28 agent on its subscriptions/listen stream, and a 2025 session as before', async () => {
    await open();
    const modern = await modernAgent();
    const legacy = await legacyAgent();
    let modernHeard = 0;
    let legacyHeard = 0;
    modern.setNotificationHandler('notifications/tools/list_changed', () => void modernHeard++);
    legacy.setNotificationHandler(ToolListChangedNotificationSchema, () => void legacyHeard++);
    const subscription = await modern.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true });
    expect(gate!.running.gate.registry.remove('calculator')).toBe(true);
    for (const deadline = Date.now() + WAIT_MS; modernHeard === 0 || legacyHeard === 0; await new Promise((wait) => setTimeout(wait, 20))) {
      if (Date.now() > deadline) throw new Error(`list_changed not heard: modern ${modernHeard}, legacy ${legacyHeard}`);
    }
    expect((await modern.listTools()).tools.map((tool) => tool.name)).not.toContain('calculator');
    await subscription.close();
    await expect(subscription.closed).resolves.toBe('local');
  });

  it('a listen stream still open when the gate closes is ended at once, not waited for', async () => {
    await open();
    const modern = await modernAgent();
    const subscription = await modern.listen({ toolsListChanged: true });
    const closing = gate!.close();
    gate = undefined;
    // The drain at close waits up to 2 s for answers being written; a listen stream is not one of them.
    const ended = await Promise.race([subscription.closed, new Promise((resolveLate) => setTimeout(() => resolveLate('still open after 1.5 s'), 1500))]);
    expect(ended).toMatch(/^(graceful|remote)$/);
    await closing;
  });
});

describe('approvals for a 2026-07-28 agent', () => {
  it('a person denies the call with a reason, and a prompt nobody answers is denied when it expires', async () => {
    await open();
    const modern = await modernAgent();
    const prompt = nextApproval(gate!.running.backend);
    const call = modern.callTool({ name: 'write_file', arguments: { path: 'plan.md', content: 'one\n' } });
    const request = await prompt;
    expect(request.agent).toMatchObject({ client: 'modern-agent', version: '1.2.3' });
    await gate!.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny', reason: 'not this file' });
    const denied = await call;
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toMatch(/^EDENIED/);
    expect(textOf(denied)).toContain('not this file');
    expect(denied._meta?.['toolgate/errorCode']).toBe('EDENIED');
    expect(existsSync(join(gate!.dirs.workspace, 'plan.md'))).toBe(false);

    // A gate whose prompts expire soon: the one answered above had the whole wait, however busy the machine.
    await gate!.close();
    await open({ approvalTimeoutMs: 1500 });
    const unanswered = await modernAgent();
    const expired = await unanswered.callTool({ name: 'write_file', arguments: { path: 'late.txt', content: 'too late' } });
    expect(expired.isError).toBe(true);
    expect(textOf(expired)).toMatch(/^EDENIED.*no one approved it in time/s);
    const decided = gate!.running.gate.audit.forCall(callIdOf(expired)).find((record) => record.kind === 'approval-decided');
    expect(decided?.payload).toMatchObject({ outcome: 'expired' });
    expect(existsSync(join(gate!.dirs.workspace, 'late.txt'))).toBe(false);
  });

  it('an agent that cancels its call takes its prompt back', async () => {
    await open();
    const modern = await modernAgent();
    const prompt = nextApproval(gate!.running.backend);
    const controller = new AbortController();
    const call = modern.callTool({ name: 'write_file', arguments: { path: 'a.txt', content: 'a' } }, { signal: controller.signal });
    const request = await prompt;
    const resolved = new Promise((resolveOutcome) => gate!.running.backend.subscribe('approvalResolved', resolveOutcome));
    controller.abort();
    await expect(call).rejects.toThrow();
    await expect(resolved).resolves.toMatchObject({ approvalId: request.approvalId, outcome: 'withdrawn' });
    expect(await gate!.running.backend.handlers.listApprovals({})).toEqual([]);
  });

  it('the gate closing denies a waiting call, and the agent reads why', async () => {
    await open();
    const modern = await modernAgent();
    const prompt = nextApproval(gate!.running.backend);
    const call = modern.callTool({ name: 'write_file', arguments: { path: 'x.txt', content: 'x' } });
    await prompt;
    await gate!.running.close();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^EDENIED.*shutting down/);
    expect(existsSync(join(gate!.dirs.workspace, 'x.txt'))).toBe(false);
  });

  it('a call waiting for a person sends progress to an agent that asked for it', async () => {
    await open();
    const modern = await modernAgent();
    const prompt = nextApproval(gate!.running.backend);
    const progress: number[] = [];
    let heard: () => void = () => {};
    const firstProgress = new Promise<void>((resolveHeard) => (heard = resolveHeard));
    const call = modern.callTool(
      { name: 'write_file', arguments: { path: 'slow.txt', content: 'slow' } },
      {
        onprogress: ({ progress: value }) => {
          progress.push(value);
          heard();
        },
      },
    );
    const request = await prompt;
    await firstProgress;
    await gate!.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
    expect((await call).isError).toBe(false);
    expect(progress[0]).toBe(1);
  });
});

describe('who a 2026-07-28 agent is', () => {
  it('the audit names the declared client; its calls share one key, another name gets another, and no session grant hangs on it', async () => {
    await open();
    const first = await modernAgent('modern-agent', '1.2.3');
    const again = await modernAgent('modern-agent', '1.2.3');
    const other = await modernAgent('other-agent', '9.9');
    const invokedOf = async (client: ModernClient) => {
      const result = await client.callTool({ name: 'echo', arguments: { text: 'who' } });
      const [invoked] = gate!.running.gate.audit.forCall(callIdOf(result));
      return invoked!.payload as { source: string; agentSession: string; agent: { client: string; version: string } };
    };
    const one = await invokedOf(first);
    expect(one).toMatchObject({ source: 'mcp', agent: { client: 'modern-agent', version: '1.2.3' } });
    expect(one.agentSession).toMatch(/^declared-[0-9a-f]{32}$/);
    expect((await invokedOf(again)).agentSession).toBe(one.agentSession);
    const two = await invokedOf(other);
    expect(two.agent).toMatchObject({ client: 'other-agent', version: '9.9' });
    expect(two.agentSession).not.toBe(one.agentSession);

    const prompt = nextApproval(gate!.running.backend);
    const call = first.callTool({ name: 'write_file', arguments: { path: 'b.md', content: 'b\n' } });
    const request = await prompt;
    expect(request.agentSession).toBe(one.agentSession);
    await expect(
      gate!.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve', scope: { kind: 'session' }, rules: ['write_file(b.md)'] }),
    ).rejects.toMatchObject({ code: 'EVALIDATION', message: expect.stringMatching(/sessionless agent.*any agent could claim/) });
    await gate!.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
    expect((await call).isError).toBe(false);
  });
});
