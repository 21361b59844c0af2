/**
 * The team's policy layer, through the real gate: rules the team's admin puts in the policy bucket
 * decide calls with the team as their provenance and change as the bucket changes; a gate that has
 * not read them fails closed (what they could have allowed asks).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../fixtures/processes';
import { connectMcp, nextApproval, startTestGate, textOf, type TestGate } from '../integration/helpers';
import { connectTeam } from '../../main/team/teamConnection';
import { loadTeamCredentials } from '../../main/team/teamCredentials';
import { startNatsServer, type TestNatsServer } from './natsServer';
import { startTeamGate } from './teamGates';

let server: TestNatsServer;
const opened: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  server = await startNatsServer('acme', { a: ['gate'], b: ['gate'] });
});

afterAll(async () => {
  for (const item of opened.reverse()) await item.close();
  await server?.close();
});

async function putTeamPolicy(policy: unknown): Promise<void> {
  const admin = await connectTeam({ url: server.url, credentials: server.members.get('admin')!.credentials });
  const kv = await new Kvm(admin).open('toolgate_acme_policy');
  await kv.put('policy', JSON.stringify(policy));
  await admin.close();
}

async function agentOf(gate: TestGate): Promise<Client> {
  const client = await connectMcp(gate.running.mcpUrl, gate.token);
  opened.push({ close: () => client.close() });
  return client;
}

describe('the team policy layer', () => {
  it('decides calls by the team\'s rules, named as the team\'s, and follows the bucket as it changes', async () => {
    await putTeamPolicy({ allow: ['write_file(notes/**)'] });
    const gate = await startTeamGate(server, 'a');
    opened.push(gate);
    const agent = await agentOf(gate);
    const allowed = await agent.callTool({ name: 'write_file', arguments: { path: 'notes/a.md', content: 'by team rule\n' } });
    expect(allowed.isError).toBe(false);
    const policyStep = JSON.stringify(gate.running.gate.audit.list({ limit: 20 }));
    expect(policyStep).toContain('nats:toolgate_acme_policy/policy');

    await putTeamPolicy({ deny: [{ rule: 'write_file(notes/**)', reason: 'the team froze notes' }] });
    // The bucket's change reaches the gate's policy a moment later.
    const engine = gate.running.gate.policyEngine!;
    await waitUntil(() => engine.decide(engine.tool('write_file')!, { path: 'notes/b.md', content: 'no\n' }).decision === 'deny', "the team's new rules to reach the gate");
    const denied = await agent.callTool({ name: 'write_file', arguments: { path: 'notes/b.md', content: 'no\n' } });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain('the team froze notes');
    expect(existsSync(join(gate.dirs.workspace, 'notes/b.md'))).toBe(false);
  });

  it('asks, never allows, what its rules could have allowed while the team policy cannot be read', async () => {
    const gate = await startTestGate({
      userPolicy: { allow: ['write_file(notes/**)'] },
      team: { url: 'nats://127.0.0.1:1', credentials: loadTeamCredentials(server.members.get('b')!.file), log: () => undefined },
    });
    opened.push(gate);
    const agent = await agentOf(gate);
    const prompt = nextApproval(gate.running.backend);
    const call = agent.callTool({ name: 'write_file', arguments: { path: 'notes/c.md', content: 'asked\n' } });
    const asked = await prompt;
    // The user's allow stands, but the unread team layer could have said otherwise: the person is asked.
    expect(asked.rule).toBe('policy-file-refused');
    await gate.running.backend.handlers.decideApproval({ approvalId: asked.approvalId, decision: 'deny' });
    expect((await call).isError).toBe(true);
  });
});
