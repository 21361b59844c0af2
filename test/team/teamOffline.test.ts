/**
 * The team's server going away and coming back, and a gate dying: against a real nats-server that
 * the test stops and starts, and the real `toolgate serve --team` killed with SIGKILL.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../fixtures/processes';
import { connectMcp, makeTempDirs, nextApproval, spawnServe, type TestGate } from '../integration/helpers';
import { teamBannerLines } from '../../main/team/teamBanner';
import { connectTeam } from '../../main/team/teamConnection';
import type { TeamMode } from '../../main/team/teamMode';
import type { TeamPrompt } from '../../shared/team';
import { startNatsServer, type TestNatsServer } from './natsServer';
import { startTeamConsole, startTeamGate, teamPromptWhere } from './teamGates';

let server: TestNatsServer;
let gate: TestGate;
let agent: Client;
let carol: TeamMode;

beforeAll(async () => {
  server = await startNatsServer('acme', { a: ['gate'], d: ['gate'], carol: ['approver'] });
  gate = await startTeamGate(server, 'a');
  agent = await connectMcp(gate.running.mcpUrl, gate.token);
  carol = await startTeamConsole(server, 'carol');
});

afterAll(async () => {
  await agent?.close();
  await carol?.close();
  await gate?.close();
  await server?.close();
});

function onCarol(approvalId: string, matches: (prompt: TeamPrompt) => boolean = () => true): Promise<TeamPrompt> {
  return teamPromptWhere(
    () => carol.listPrompts({}),
    (wake) => carol.onChange(wake),
    (prompt) => prompt.request.approvalId === approvalId && matches(prompt),
  );
}

/** How many records of each kind a call has, its steps counted. */
function decisionsOf(callId: string): number {
  return gate.running.gate.audit.forCall(callId).filter((record) => record.kind === 'approval-decided').length;
}

describe('the team server stopped mid-approval and started again', () => {
  it('keeps the gate working on its own console, loses nothing, and runs nothing twice', async () => {
    const team = gate.running.gate.team!;
    // A prompt the team has seen, then the server goes away.
    const seenPrompt = nextApproval(gate.running.backend);
    const seenCall = agent.callTool({ name: 'write_file', arguments: { path: 'seen.md', content: 'seen\n' } });
    const seen = await seenPrompt;
    await onCarol(seen.approvalId);
    await server.stop();
    await waitUntil(() => team.status().state === 'offline', 'the gate to see the team server gone');
    expect((await gate.running.backend.handlers.teamStatus({})).state).toBe('offline');

    // The team may have answered what it saw: this console may not answer it alone.
    await expect(gate.running.backend.handlers.decideApproval({ approvalId: seen.approvalId, decision: 'approve' })).rejects.toThrow(/team has seen this prompt/);
    // A prompt raised offline is answered here, and its card waits in the queue.
    const offlinePrompt = nextApproval(gate.running.backend);
    const offlineCall = agent.callTool({ name: 'write_file', arguments: { path: 'offline.md', content: 'offline\n' } });
    const offline = await offlinePrompt;
    await gate.running.backend.handlers.decideApproval({ approvalId: offline.approvalId, decision: 'approve' });
    expect((await offlineCall).isError).toBe(false);
    expect(team.status().queued).toBeGreaterThan(0);

    await server.start();
    await team.whenOnline();
    await waitUntil(() => carol.status().state === 'online', "carol's console to reconnect");
    // The offline prompt reaches the team already decided by A's console: nobody can answer it again.
    // Its end (the prompts' stream) and its decision (the decisions bucket) arrive on their own, in either order.
    const caughtUp = await onCarol(offline.approvalId, (prompt) => prompt.state === 'ended' && prompt.decision !== undefined);
    expect(caughtUp.decision).toMatchObject({ approver: 'console of a', decision: 'approve' });
    const late = await carol.decide({ gate: 'a', approvalId: offline.approvalId, bindingHash: offline.bindingHash, decision: 'deny' }, () => Promise.reject(new Error('no gate')));
    expect(late.won).toBe(false);
    // The prompt the team saw is answered by the team, once.
    const answer = await carol.decide({ gate: 'a', approvalId: seen.approvalId, bindingHash: seen.bindingHash, decision: 'approve' }, () => Promise.reject(new Error('no gate')));
    expect(answer.won).toBe(true);
    expect((await seenCall).isError).toBe(false);
    expect(readFileSync(join(gate.dirs.workspace, 'seen.md'), 'utf8')).toBe('seen\n');
    expect(decisionsOf(seen.callId)).toBe(1);
    expect(decisionsOf(offline.callId)).toBe(1);
    await waitUntil(() => team.status().queued === 0, "the gate's queue to empty");

    // Each card is in the stream once, however often it was sent across the outage.
    const admin = await connectTeam({ url: server.url, credentials: server.members.get('admin')!.credentials });
    const jsm = await jetstreamManager(admin);
    const info = await jsm.streams.info('TOOLGATE_acme_PROMPTS', { subjects_filter: 'toolgate.acme.prompts.a' });
    expect(info.state.subjects?.['toolgate.acme.prompts.a']).toBe(carol.listPrompts({ gate: 'a' }).length);
    await admin.close();
  });
});

describe('a gate in a team, as `toolgate serve --team`', () => {
  it('says in its banner whom it joined, and a prompt it raised stays answerable by the team after it is killed', async () => {
    const dirs = makeTempDirs();
    const serve = await spawnServe(dirs, ['--team', server.url, '--team-creds', server.members.get('d')!.file]);
    try {
      // The banner waits a few seconds for the server, then says the gate starts offline: on a loaded
      // machine it may say either. What it says once connected is checked on gate a's team below.
      expect(serve.stdout()).toMatch(/team\s+acme as d \(not an approver.*\); (connected to nats:\/\/|OFFLINE \(nats:\/\/\S+ not reached yet\))/);
      await gate.running.gate.team!.whenOnline();
      expect(await teamBannerLines(gate.running.gate.team)).toEqual([expect.stringMatching(new RegExp(`^  team\\s+acme as a \\(not an approver.*\\); connected to ${server.url}$`))]);
      const token = readFileSync(join(dirs.home, 'token'), 'utf8').trim();
      const client = await connectMcp(serve.mcpUrl, token);
      void client.callTool({ name: 'write_file', arguments: { path: 'killed.md', content: 'never\n' } }).catch(() => undefined);
      const waiting = await teamPromptWhere(() => carol.listPrompts({ gate: 'd' }), (wake) => carol.onChange(wake), (prompt) => prompt.state === 'waiting');
      serve.child.kill('SIGKILL');
      await new Promise((resolveExit) => serve.child.once('exit', resolveExit));
      // The dead gate's prompt is still the team's to resolve: the answer is taken, and nothing ran.
      const answer = await carol.decide({ gate: 'd', approvalId: waiting.request.approvalId, bindingHash: waiting.request.bindingHash, decision: 'deny', reason: 'its gate died' }, () => Promise.reject(new Error('no gate')));
      expect(answer.won).toBe(true);
      // Carol's board learns of the decision from the bucket, a moment after her write won.
      const decided = await teamPromptWhere(() => carol.listPrompts({ gate: 'd' }), (wake) => carol.onChange(wake), (prompt) => prompt.request.approvalId === waiting.request.approvalId && prompt.state !== 'waiting');
      expect(decided.state).not.toBe('waiting');
      expect(existsSync(join(dirs.workspace, 'killed.md'))).toBe(false);
      await client.close().catch(() => undefined);
    } finally {
      await serve.stop();
      dirs.remove();
    }
  });

  it('starts without its team server, and says so', async () => {
    const dirs = makeTempDirs();
    const serve = await spawnServe(dirs, ['--team', 'nats://127.0.0.1:1', '--team-creds', server.members.get('d')!.file]);
    try {
      expect(serve.stdout()).toMatch(/team\s+acme as d .*OFFLINE/);
    } finally {
      await serve.stop();
      dirs.remove();
    }
  });
});
