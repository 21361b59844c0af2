/**
 * Prompts seen by the team, against a real nats-server: three gates and two consoles, a prompt raised
 * on gate A answered from gate B's console, approvers racing, a forged decision, and subjects a gate
 * may not publish on.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { WAIT_MS, waitUntil } from '../fixtures/processes';
import { runCliHere } from '../integration/cliHere';
import type { CliRun } from '../integration/cliProcesses';
import { writeSecretsFile } from '../../main/secrets/secretsFile';
import { statePaths } from '../../main/state/paths';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Kvm } from '@nats-io/kv';
import { jetstream } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BridgeClient, connectMcp, nextApproval, textOf, type TestGate } from '../integration/helpers';
import { connectTeam } from '../../main/team/teamConnection';
import { signDecision } from '../../main/team/teamMessages';
import { signingKeyFromSeed } from '../../main/team/teamKeys';
import type { TeamMode } from '../../main/team/teamMode';
import type { TeamPrompt } from '../../shared/team';
import { startNatsServer, type TestNatsServer } from './natsServer';
import { startTeamConsole, startTeamGate, teamLogs, teamPromptWhere } from './teamGates';

let server: TestNatsServer;
const gates = {} as Record<'a' | 'b' | 'c', TestGate>;
const agents = {} as Record<'a' | 'b' | 'c', Client>;
let carol: TeamMode;
let dave: TeamMode;
let consoleB: BridgeClient;

beforeAll(async () => {
  server = await startNatsServer('acme', { a: ['gate'], b: ['gate', 'approver'], c: ['gate'], carol: ['approver'], dave: ['approver'], mallory: ['approver'] }, { untrusted: ['mallory'] });
  for (const member of ['a', 'b', 'c'] as const) {
    gates[member] = await startTeamGate(server, member);
    agents[member] = await connectMcp(gates[member].running.mcpUrl, gates[member].token);
  }
  carol = await startTeamConsole(server, 'carol');
  dave = await startTeamConsole(server, 'dave');
  consoleB = await BridgeClient.open(gates.b.running.port, gates.b.consoleToken);
});

afterAll(async () => {
  consoleB?.close();
  for (const agent of Object.values(agents)) await agent.close();
  await carol?.close();
  await dave?.close();
  for (const gate of Object.values(gates)) await gate.close();
  await server?.close();
});

/** The prompt with this approval id on a team console with no gate, once it shows there. */
function onTeamConsole(team: TeamMode, approvalId: string, state: TeamPrompt['state'] = 'waiting'): Promise<TeamPrompt> {
  return teamPromptWhere(
    () => team.listPrompts({}),
    (wake) => team.onChange(wake),
    (prompt) => prompt.request.approvalId === approvalId && prompt.state === state,
  );
}

/** The prompt with this approval id on a gate's console over its WebSocket bridge, once it shows there. */
async function onBridgeConsole(bridge: BridgeClient, approvalId: string): Promise<TeamPrompt> {
  for (;;) {
    const reply = await bridge.request('listTeamPrompts', {});
    if (!reply.ok) throw new Error(JSON.stringify(reply.error));
    const found = (reply.value as TeamPrompt[]).find((prompt) => prompt.request.approvalId === approvalId);
    if (found) return found;
    await bridge.waitForEvent('teamChanged', () => true).catch(() => undefined);
    await new Promise((resolveSoon) => setTimeout(resolveSoon, 20));
  }
}

/**
 * `toolgate console --team …` run until its board holds the prompt: the command lists or answers
 * what reached it within its own short wait after connecting, which a loaded machine may outlast.
 * A run that found the prompt, or failed for another reason, is the answer.
 */
async function teamConsoleWith(prompt: string, args: string[], home: string): Promise<CliRun> {
  let run: CliRun | undefined;
  await waitUntil(async () => {
    run = await runCliHere(['console', '--team', ...args], home);
    const missed = run.stderr.includes('no such team prompt') || run.stderr.includes('cannot reach the team server') || (!args.includes('--approve') && !args.includes('--deny') && !run.stdout.includes(prompt));
    return !missed;
  }, `toolgate console --team ${args.join(' ')} to see prompt ${prompt}`);
  return run!;
}

/** Raises a write_file prompt on a gate through its agent; resolves with the prompt and the agent's pending call. */
async function raisePrompt(member: 'a' | 'b' | 'c', path: string, content: string) {
  const prompt = nextApproval(gates[member].running.backend);
  const call = agents[member].callTool({ name: 'write_file', arguments: { path, content } });
  return { request: await prompt, call };
}

describe('a team of three gates and two consoles', () => {
  it('shows a prompt raised on gate A on every team console, and runs it on A when gate B\'s console approves it', async () => {
    const { request, call } = await raisePrompt('a', 'notes/team.md', 'answered by b\n');

    const seenByCarol = await onTeamConsole(carol, request.approvalId);
    expect(seenByCarol).toMatchObject({ gate: 'a', machine: hostname(), workspace: gates.a.running.gate.workspace, state: 'waiting' });
    expect(seenByCarol.request.agent?.client).toBe('toolgate-integration-test');
    expect(seenByCarol.request.tool).toBe('write_file');
    // Filters: by gate, machine, workspace and agent.
    expect(carol.listPrompts({ gate: 'a' }).map((prompt) => prompt.request.approvalId)).toContain(request.approvalId);
    expect(carol.listPrompts({ gate: 'c' }).map((prompt) => prompt.request.approvalId)).not.toContain(request.approvalId);
    expect(carol.listPrompts({ workspace: gates.b.running.gate.workspace })).toEqual([]);
    expect(carol.listPrompts({ agent: 'someone-else' })).toEqual([]);
    expect(carol.listPrompts({ machine: hostname(), agent: 'toolgate-integration-test' }).length).toBeGreaterThan(0);

    const seenByB = await onBridgeConsole(consoleB, request.approvalId);
    const answer = await consoleB.request('decideTeamPrompt', { gate: 'a', approvalId: request.approvalId, bindingHash: seenByB.request.bindingHash, decision: 'approve' });
    expect(answer).toMatchObject({ ok: true, value: { won: true, decision: { approver: 'b', by: 'b', decision: 'approve' } } });

    const result = await call;
    expect(result.isError).toBe(false);
    expect(readFileSync(join(gates.a.dirs.workspace, 'notes/team.md'), 'utf8')).toBe('answered by b\n');
    // The signed decision is in A's audit, whole.
    const decided = gates.a.running.gate.audit.forCall(request.callId).find((record) => record.kind === 'approval-decided');
    expect(decided?.payload).toMatchObject({ outcome: 'approved', teamDecision: { approver: 'b', publicKey: server.members.get('b')!.publicKey } });
    expect((decided?.payload as { teamDecision: { signature: string } }).teamDecision.signature).toMatch(/^[A-Za-z0-9_-]{80,}$/);
    // And every console sees it end.
    expect((await onTeamConsole(carol, request.approvalId, 'ended')).ended?.outcome).toBe('approved');
    // Nothing the team holds carries a gate's tokens.
    const everything = JSON.stringify(carol.listPrompts({}));
    for (const gate of Object.values(gates)) {
      expect(everything).not.toContain(gate.token);
      expect(everything).not.toContain(gate.consoleToken);
    }
  });

  it('lets exactly one of two racing approvers win; the other is told who answered and how', async () => {
    const { request, call } = await raisePrompt('c', 'race.md', 'raced\n');
    const shown = await onTeamConsole(carol, request.approvalId);
    await onTeamConsole(dave, request.approvalId);
    const answers = await Promise.all([
      carol.decide({ gate: 'c', approvalId: request.approvalId, bindingHash: shown.request.bindingHash, decision: 'approve' }, () => Promise.reject(new Error('no gate'))),
      dave.decide({ gate: 'c', approvalId: request.approvalId, bindingHash: shown.request.bindingHash, decision: 'deny', reason: 'not today' }, () => Promise.reject(new Error('no gate'))),
    ]);
    expect(answers.filter((answer) => answer.won)).toHaveLength(1);
    const winner = answers.find((answer) => answer.won)!.decision;
    const loser = answers.find((answer) => !answer.won)!;
    // The loser is told the winner's decision: who and how.
    expect(loser.decision).toEqual(winner);
    const result = await call;
    if (winner.approver === 'carol') {
      expect(result.isError).toBe(false);
    } else {
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('not today');
    }
    const decided = gates.c.running.gate.audit.forCall(request.callId).filter((record) => record.kind === 'approval-decided');
    expect(decided).toHaveLength(1);
    expect(decided[0]!.payload).toMatchObject({ teamDecision: { approver: winner.approver, signature: winner.signature } });
  });

  it('puts a local console answer through the same key: a team answer after it loses, and the local one after a team answer is refused', async () => {
    const first = await raisePrompt('a', 'local-first.md', 'local\n');
    const shown = await onTeamConsole(carol, first.request.approvalId);
    await gates.a.running.backend.handlers.decideApproval({ approvalId: first.request.approvalId, decision: 'approve' });
    const late = await carol.decide({ gate: 'a', approvalId: first.request.approvalId, bindingHash: shown.request.bindingHash, decision: 'deny' }, () => Promise.reject(new Error('no gate')));
    expect(late).toMatchObject({ won: false, decision: { approver: 'console of a', decision: 'approve' } });
    expect((await first.call).isError).toBe(false);

    const second = await raisePrompt('a', 'team-first.md', 'team\n');
    const shownSecond = await onTeamConsole(carol, second.request.approvalId);
    // The local console answers in the same instant: whichever reaches the key first wins, never both.
    const [teamAnswer, localAnswer] = await Promise.allSettled([
      carol.decide({ gate: 'a', approvalId: second.request.approvalId, bindingHash: shownSecond.request.bindingHash, decision: 'deny', reason: 'carol says no' }, () => Promise.reject(new Error('no gate'))),
      gates.a.running.backend.handlers.decideApproval({ approvalId: second.request.approvalId, decision: 'approve' }),
    ]);
    const teamWon = teamAnswer.status === 'fulfilled' && teamAnswer.value.won;
    const localWon = localAnswer.status === 'fulfilled';
    expect(teamWon).not.toBe(localWon);
    const result = await second.call;
    expect(result.isError).toBe(teamWon);
    expect(gates.a.running.gate.audit.forCall(second.request.callId).filter((record) => record.kind === 'approval-decided')).toHaveLength(1);
  });
});

describe('toolgate console --team, a console with no gate of its own', () => {
  it('lists the team\'s prompts with machine, workspace and agent, filters them, and answers one; a second answer is told who won', async () => {
    const home = mkdtempSync(join(tmpdir(), 'toolgate-team-console-'));
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ team: server.url, teamCreds: server.members.get('dave')!.file }));
    try {
      const { request, call } = await raisePrompt('b', 'from-cli.md', 'cli\n');
      await onTeamConsole(carol, request.approvalId);
      const listed = await teamConsoleWith(request.approvalId, ['--gate', 'b'], home);
      expect(listed.code, listed.stderr).toBe(0);
      const line = listed.stdout.split('\n').find((text) => text.includes(request.approvalId))!;
      expect(line).toContain(`b/${request.approvalId}  waiting  ${hostname()}:${gates.b.running.gate.workspace}  toolgate-integration-test  write_file`);
      expect((await runCliHere(['console', '--team', '--gate', 'c'], home)).stdout).not.toContain(request.approvalId);
      const approved = await teamConsoleWith(request.approvalId, ['--approve', `b/${request.approvalId}`], home);
      expect(approved.code, approved.stderr).toBe(0);
      expect((await call).isError).toBe(false);
      const late = await teamConsoleWith(request.approvalId, ['--deny', `b/${request.approvalId}`], home);
      expect(late.code).toBe(3);
      expect(late.stderr).toContain('dave (dave) already approved');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('what the team refuses', () => {
  it('never sees a secret the gate knows: the card it gets is the console\'s, redacted', async () => {
    const secret = 'team-must-not-see-4f9c2e71b8';
    writeSecretsFile(statePaths(gates.c.dirs.home).secrets, { DEPLOY_KEY: secret });
    const { request, call } = await raisePrompt('c', 'deploy.env', `KEY=${secret}\n`);
    const seen = await onTeamConsole(carol, request.approvalId);
    expect(JSON.stringify(seen)).not.toContain(secret);
    expect(JSON.stringify(seen.request.arguments)).toContain('DEPLOY_KEY');
    await gates.c.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny' });
    await call;
  });

  it('refuses and audits a decision signed by a key that is not an approver\'s, and the prompt stays answerable', async () => {
    const { request, call } = await raisePrompt('a', 'forged.md', 'forged\n');
    await onTeamConsole(carol, request.approvalId);
    const mallory = server.members.get('mallory')!;
    const connection = await connectTeam({ url: server.url, credentials: mallory.credentials });
    const kv = await new Kvm(connection).open('toolgate_acme_decisions');
    const forged = signDecision(
      { gate: 'a', approvalId: request.approvalId, bindingHash: request.bindingHash, decision: 'approve', by: 'mallory', approver: 'carol', decidedAt: new Date().toISOString() },
      signingKeyFromSeed(mallory.credentials.signingKey),
      mallory.publicKey,
    );
    await kv.create(`a.${request.approvalId}`, JSON.stringify(forged));
    await connection.close();

    // Refused and audited with the forged decision whole; the key is cleared, so carol can still answer.
    const refusal = await waitFor(() => gates.a.running.gate.audit.list({ limit: 50 }).find((record) => record.kind === 'rejected' && (record.payload as { approvalId?: string }).approvalId === request.approvalId));
    expect(refusal.payload).toMatchObject({ step: 'team-decision', decision: { signature: forged.signature, publicKey: mallory.publicKey } });
    expect(JSON.stringify(refusal.payload)).toContain('not one of the team');
    const answer = await waitFor(async () => {
      const attempt = await carol.decide({ gate: 'a', approvalId: request.approvalId, bindingHash: request.bindingHash, decision: 'deny', reason: 'carol saw a forgery' }, () => Promise.reject(new Error('no gate')));
      return attempt.won ? attempt : undefined;
    });
    expect(answer.decision.approver).toBe('carol');
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('carol saw a forgery');
  });

  it('refuses what a gate publishes under another gate\'s name, and its decisions on another gate\'s prompts', async () => {
    const connection = await connectTeam({ url: server.url, credentials: server.members.get('c')!.credentials });
    // The server refuses each for its permissions, at once (never by the client giving up); the wait is for the bucket's opening, which must succeed.
    const js = jetstream(connection, { timeout: WAIT_MS });
    await expect(js.publish('toolgate.acme.prompts.a', '{}')).rejects.toThrow(/Permissions Violation/);
    await expect(js.publish('toolgate.acme.checkpoints.a', '{}')).rejects.toThrow(/Permissions Violation/);
    const kv = await new Kvm(js).open('toolgate_acme_decisions');
    await expect(kv.create('a.00000000-0000-0000-0000-000000000000', '{}')).rejects.toThrow(/Permissions Violation/);
    await connection.close();
  });

  it('drops a malformed or oversized message and a malformed decision, logs them, and goes on', async () => {
    const connection = await connectTeam({ url: server.url, credentials: server.members.get('a')!.credentials });
    const js = jetstream(connection, { timeout: WAIT_MS });
    await js.publish('toolgate.acme.prompts.a', 'not json {');
    await js.publish('toolgate.acme.prompts.a', JSON.stringify({ gate: 'a', request: { approvalId: 42 } }));
    await js.publish('toolgate.acme.prompts.a', JSON.stringify({ gate: 'a', padding: 'x'.repeat(200 * 1024) })).catch(() => undefined);
    await js.publish('toolgate.acme.ended.a', JSON.stringify({ gate: 'b', approvalId: 'x', outcome: 'approved', endedAt: 'now' }));
    const { request, call } = await raisePrompt('a', 'after-garbage.md', 'still fine\n');
    const kv = await new Kvm(js).open('toolgate_acme_decisions');
    await kv.create(`a.${request.approvalId}`, '{"decision": "approve"');
    await connection.close();
    // Each is logged as it is read, in turn, whatever the order its stream is delivered in: each is waited for.
    for (const logged of ['not UTF-8 JSON', 'does not fit its schema', 'claiming to be from b']) {
      await waitFor(() => teamLogs.get('carol')!.find((line) => line.includes(logged)));
    }
    // Gate A refused the malformed decision, cleared its key, and the prompt is answered as usual.
    await waitFor(() => teamLogs.get('a')!.find((line) => line.includes('refused a team decision') && line.includes(request.callId)));
    const answer = await waitFor(async () => {
      const attempt = await carol.decide({ gate: 'a', approvalId: request.approvalId, bindingHash: request.bindingHash, decision: 'approve' }, () => Promise.reject(new Error('no gate')));
      return attempt.won ? attempt : undefined;
    });
    expect(answer.won).toBe(true);
    expect((await call).isError).toBe(false);
    expect(carol.listPrompts({ gate: 'a' }).every((prompt) => typeof prompt.request.approvalId === 'string')).toBe(true);
  });
});

/** Polls until the probe gives a value (the team is asynchronous by nature); fails after WAIT_MS. */
async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting after ${WAIT_MS / 1000} s`);
    await new Promise((resolveSoon) => setTimeout(resolveSoon, 50));
  }
}
