/**
 * Replay on a real gate: calls of pure and deterministic tools recorded over MCP, then re-run
 * through the console bridge and `toolgate audit replay`, with the response hashes compared. A
 * replay is a call of its own in the audit log; calls that change things, never ran, were recorded
 * in part or ran with another tool version are refused with the reason.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayReport } from '../../shared/explorer';
import { echoTool } from '../../main/tools/echo';
import { startGate } from '../../main/gate/startGate';
import { runCliHere } from './cliHere';
import { ROOT, callIdOf, connectMcp, makeTempDirs, nextApproval, readToken, runCli, startTestGate, type TestGate } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

let gate: TestGate;
let client: Client;

beforeAll(async () => {
  gate = await startTestGate();
  client = await connectMcp(gate.running.mcpUrl, gate.token);
});

afterAll(async () => {
  await client?.close();
  await gate?.close();
});

/** Makes a call as an agent does and returns its call id. */
async function record(name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  return callIdOf(result);
}

function replay(callId: string): Promise<ReplayReport> {
  return gate.running.backend.handlers.replayCall({ callId });
}

function recordCount(): number {
  return gate.running.gate.audit.list({ limit: 100_000 }).length;
}

describe('replay of a recorded call', () => {
  it('re-runs echo, hash and calculator and finds the same response hash, as a new audited call', async () => {
    for (const [name, args] of [
      ['echo', { text: 'the same twice' }],
      ['hash', { text: 'abc' }],
      ['calculator', { expression: '10 * (5 + 3)' }],
    ] as const) {
      const callId = await record(name, args);
      const report = await replay(callId);
      expect(report.verdict, report.reason).toBe('same');
      expect(report.reason).toContain('gave the same response');
      expect(report.recordedHash).toMatch(/^[0-9a-f]{64}$/);
      expect(report.replayedHash).toBe(report.recordedHash);
      expect(report.recordedVersion).toBe('1.0.0');
      expect(report.currentVersion).toBe('1.0.0');
      const replayed = gate.running.gate.audit.forCall(report.replayCallId!);
      expect(replayed.map((item) => item.kind)).toEqual(expect.arrayContaining(['invoked', 'policy', 'started', 'completed']));
      expect(replayed[0]!.payload).toMatchObject({ tool: name, source: 'console', replayOf: callId, arguments: args });
    }
  });

  it('says different, with both hashes, when what a deterministic tool reads has changed', async () => {
    writeFileSync(join(gate.dirs.workspace, 'notes.md'), 'first version\n');
    const callId = await record('read_file', { path: 'notes.md' });
    expect((await replay(callId)).verdict).toBe('same');
    writeFileSync(join(gate.dirs.workspace, 'notes.md'), 'second version\n');
    const report = await replay(callId);
    expect(report.verdict).toBe('different');
    expect(report.replayedHash).not.toBe(report.recordedHash);
    expect(report.reason).toContain(report.recordedHash!.slice(0, 16));
    expect(report.reason).toContain(report.replayedHash!.slice(0, 16));
    expect(report.reason).toMatch(/what it reads .* has changed/);
  });

  it('refuses, naming both versions, when the tool is another version now, and says when it is gone', async () => {
    const callId = await record('echo', { text: 'versioned' });
    const { registry } = gate.running.gate;
    registry.remove('echo');
    try {
      registry.register({ ...echoTool, manifest: { ...echoTool.manifest, version: '1.1.0' } });
      const before = recordCount();
      const changed = await replay(callId);
      expect(changed).toMatchObject({ verdict: 'not-replayable', recordedVersion: '1.0.0', currentVersion: '1.1.0' });
      expect(changed.reason).toBe(
        'echo was 1.0.0 when recorded and is 1.1.0 now: its output may differ for that reason alone, so it is not re-run (a replay compares runs of the same version)',
      );
      expect(recordCount()).toBe(before);
      registry.remove('echo');
      const gone = await replay(callId);
      expect(gone.verdict).toBe('not-replayable');
      expect(gone.reason).toBe('echo is no longer registered: there is nothing to re-run it with');
    } finally {
      registry.remove('echo');
      registry.register(echoTool);
    }
  });

  it('never re-runs write_file, and says a call a person denied never ran', async () => {
    const approved = nextApproval(gate.running.backend);
    const write = client.callTool({ name: 'write_file', arguments: { path: 'out.md', content: 'written once\n' } });
    await gate.running.backend.handlers.decideApproval({ approvalId: (await approved).approvalId, decision: 'approve' });
    const writeId = callIdOf(await write);
    const before = recordCount();
    const report = await replay(writeId);
    expect(report.verdict).toBe('not-replayable');
    expect(report.reason).toMatch(/^write_file is not replayable: it declares FsWrite/);
    expect(recordCount()).toBe(before);

    const denied = nextApproval(gate.running.backend);
    const refused = client.callTool({ name: 'write_file', arguments: { path: 'out.md', content: 'never\n' } });
    await gate.running.backend.handlers.decideApproval({ approvalId: (await denied).approvalId, decision: 'deny' });
    const deniedReport = await replay(callIdOf(await refused));
    expect(deniedReport.verdict).toBe('not-replayable');
    expect(deniedReport.reason).toMatch(/^the call never ran \(EDENIED: .*\): there is no response to compare$/);
  });

  it('refuses a call whose recorded arguments were cut, and a call id the log does not hold', async () => {
    const callId = await record('echo', { text: 'x'.repeat(40_000) });
    const report = await replay(callId);
    expect(report.verdict).toBe('not-replayable');
    expect(report.reason).toMatch(/^the recorded arguments are not the whole input/);
    await expect(replay('no-such-call')).rejects.toThrow('no call "no-such-call" in the audit log');
  });

  it('answers `toolgate audit replay` with 0 same, 1 different, 2 not replayable or unknown', async () => {
    const same = await record('echo', { text: 'from the cli' });
    const sameRun = await runCli(['audit', 'replay', same], gate.dirs.home);
    expect(sameRun.code, sameRun.stderr).toBe(0);
    expect(sameRun.stdout).toMatch(/^same: echo 1\.0\.0 gave the same response/);
    expect(sameRun.stdout).toMatch(/recorded {2}[0-9a-f]{64}\n {2}replayed {2}[0-9a-f]{64}/);

    writeFileSync(join(gate.dirs.workspace, 'cli.md'), 'before\n');
    const read = await record('read_file', { path: 'cli.md' });
    writeFileSync(join(gate.dirs.workspace, 'cli.md'), 'after\n');
    const differentRun = await runCliHere(['audit', 'replay', read, '--json'], gate.dirs.home);
    expect(differentRun.code, differentRun.stderr).toBe(1);
    const json = JSON.parse(differentRun.stdout) as ReplayReport;
    expect(json).toMatchObject({ callId: read, verdict: 'different' });
    expect(json.replayedHash).not.toBe(json.recordedHash);

    const cut = await record('echo', { text: 'y'.repeat(40_000) });
    const refusedRun = await runCliHere(['audit', 'replay', cut], gate.dirs.home);
    expect(refusedRun.code).toBe(2);
    expect(refusedRun.stderr).toContain('not-replayable: the recorded arguments are not the whole input');

    const unknown = await runCliHere(['audit', 'replay', 'no-such-call'], gate.dirs.home);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('ENOTFOUND: no call "no-such-call" in the audit log');

    const missing = await runCliHere(['audit', 'replay'], gate.dirs.home);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('audit replay needs a call id');
  });

  it('tells the person to start the gate when none runs', async () => {
    const dirs = makeTempDirs();
    try {
      const run = await runCliHere(['audit', 'replay', 'some-call'], dirs.home);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("a replay re-runs the tool in the gate's tool processes, and no gate is running");
      expect(run.stderr).toContain('toolgate serve');
    } finally {
      dirs.remove();
    }
  });
});

describe('replay of a call the policy puts before a person', () => {
  it('asks again, and `audit replay` says it waits for approval, then answers', async () => {
    const dirs = makeTempDirs();
    const running = await startGate({
      home: dirs.home,
      workspace: dirs.workspace,
      port: 0,
      approvalTimeoutMs: WAIT_MS,
      poolSize: 1,
      toolModules: [join(ROOT, 'test/fixtures/tools/replayable.mjs')],
    });
    const agent = await connectMcp(running.mcpUrl, readToken(dirs.home));
    try {
      const first = nextApproval(running.backend);
      const call = agent.callTool({ name: 'stamp', arguments: { label: 'once' } });
      await running.backend.handlers.decideApproval({ approvalId: (await first).approvalId, decision: 'approve' });
      const callId = callIdOf(await call);

      const again = nextApproval(running.backend);
      const cli = runCli(['audit', 'replay', callId], dirs.home);
      const prompt = await again;
      expect(prompt).toMatchObject({ tool: 'stamp', toolVersion: '2.0.0', arguments: { label: 'once' } });
      await running.backend.handlers.decideApproval({ approvalId: prompt.approvalId, decision: 'approve' });
      const run = await cli;
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain("the replay waits for a person's approval, as the policy asks for this tool");
      expect(run.stdout).toMatch(/^same: stamp 2\.0\.0 gave the same response/);

      const denied = nextApproval(running.backend);
      const refused = running.backend.handlers.replayCall({ callId });
      await running.backend.handlers.decideApproval({ approvalId: (await denied).approvalId, decision: 'deny' });
      const report = await refused;
      expect(report.verdict).toBe('not-replayable');
      expect(report.reason).toMatch(/^the replay was refused before it ran \(EDENIED: stamp was not run: a person denied it/);
    } finally {
      await agent.close();
      await running.close();
      dirs.remove();
    }
  });
});
