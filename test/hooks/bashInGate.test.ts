/**
 * Claude Code's Bash, allowed by the hook, runs in the gate's sandbox: the real `toolgate hook
 * claude-code` is fed Claude Code's PreToolUse, and the command its updatedInput names is run with
 * real bash in the folder Claude Code works in, as Claude Code would run it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { hashCanonical } from '../../shared/hash';
import type { GateOptions } from '../../main/gate/createGate';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { CallRedactions } from '../../main/executor/callRedactions';
import { commandSha256, NOT_RUN_EXIT_CODE, sandboxedCommand } from '../../main/hooks/bashRun';
import type { HookInput } from '../../main/hooks/hookInput';
import { HookJudge } from '../../main/hooks/hookJudge';
import { WAIT_MS, waitUntil, writeWhenRead } from '../fixtures/processes';
import { auditKinds, makeTempDirs, nextApproval, spawnServe } from '../integration/helpers';
import { runBash, runHook, type BashRun, type HookRun } from './hookProcesses';

const SESSION = '4f1c2b8e-9a3d-4c57-b1e2-7d0f6a9c3e21';

/**
 * A gate whose folders live outside /tmp (the sandbox gives every call a /tmp of its own, which
 * would hide them whatever else it does): a person's home folder holding the state folder at
 * ~/.toolgate, a workspace beside it, and the gate's tool processes told that HOME is that folder.
 */
interface HomeGate {
  running: RunningGate;
  /** The person's home folder (HOME in the sandbox). */
  user: string;
  /** The state folder, ~/.toolgate. */
  home: string;
  workspace: string;
  /** The two tokens in the state folder: what must never come out. */
  secrets: string[];
}

const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((close) => close()));
});

async function openHomeGate(userPolicy: unknown, options: Partial<GateOptions> = {}): Promise<HomeGate> {
  const base = mkdtempSync('/var/tmp/toolgate-bash-');
  const user = join(base, 'user');
  const home = join(user, '.toolgate');
  const workspace = join(base, 'ws');
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace);
  writeFileSync(join(home, 'policy.json'), JSON.stringify(userPolicy));
  const realHome = process.env.HOME;
  // Tool processes take HOME from the gate's environment when the gate starts.
  process.env.HOME = user;
  let running: RunningGate;
  try {
    running = await startGate({ home, workspace, port: 0, poolSize: 1, approvalTimeoutMs: WAIT_MS, ...options });
  } finally {
    process.env.HOME = realHome;
  }
  opened.push(async () => {
    await running.close();
    rmSync(base, { recursive: true, force: true });
  });
  const secrets = ['token', 'console-token'].map((name) => readFileSync(join(home, name), 'utf8').trim());
  return { running, user, home, workspace, secrets };
}

/** Claude Code's PreToolUse of a Bash call in `cwd`. */
function bashInput(cwd: string, command: string, toolUseId: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: SESSION,
    transcript_path: '/home/dev/.claude/projects/p/s.jsonl',
    cwd,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command, description: 'a command', ...extra },
    tool_use_id: toolUseId,
  });
}

/** Claude Code's own Read of `notes.txt` in the gate's workspace (it runs on the host), as the hook judges it. */
function claudeRead(gate: HomeGate, toolUseId: string): Promise<HookRun> {
  const input = { session_id: SESSION, cwd: gate.workspace, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: join(gate.workspace, 'notes.txt') }, tool_use_id: toolUseId };
  return runHook(gate.home, JSON.stringify(input));
}

/**
 * Claude Code's Read of `notes.txt` while a program through the gate may swap names: a person is asked
 * (rule hook:program-running) before any answer comes, and their deny is the hook's answer.
 */
async function expectReadAskedThenDenied(gate: HomeGate, toolUseId: string): Promise<void> {
  const prompt = nextApproval(gate.running.backend);
  const asked = claudeRead(gate, toolUseId);
  // A person is asked before any answer: an answer first was given unasked.
  const first = await Promise.race([prompt, asked.then((run) => ({ answeredUnasked: run.answer.hookSpecificOutput?.permissionDecision }))]);
  expect(first).not.toHaveProperty('answeredUnasked');
  const request = await prompt;
  expect(request.rule).toBe('hook:program-running');
  await gate.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny', reason: 'not while a program may swap names' });
  expect((await asked).answer.hookSpecificOutput?.permissionDecision).toBe('deny');
}

/** The command Claude Code runs in place of the Bash call: the hook's updatedInput, which it must carry. */
async function allowedCommand(gate: HomeGate, command: string, toolUseId: string): Promise<string> {
  const { answer } = await runHook(gate.home, bashInput(gate.workspace, command, toolUseId));
  expect(answer.hookSpecificOutput?.permissionDecision).toBe('allow');
  const replaced = answer.hookSpecificOutput?.updatedInput?.command;
  expect(typeof replaced).toBe('string');
  return replaced as string;
}

/**
 * The command Claude Code runs for a Bash call the rules would allow but that reaches outside the
 * workspace: the gate asks a person first (never allowed unasked), and once approved, hands it back.
 */
async function approvedCommand(gate: HomeGate, command: string, toolUseId: string): Promise<string> {
  const prompt = nextApproval(gate.running.backend);
  const hook = runHook(gate.home, bashInput(gate.workspace, command, toolUseId));
  const request = await prompt;
  expect({ command, rule: request.rule }).toEqual({ command, rule: 'outside-workspace' });
  await gate.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
  const { answer } = await hook;
  expect(answer.hookSpecificOutput?.permissionDecision).toBe('allow');
  return answer.hookSpecificOutput!.updatedInput!.command as string;
}

/** Runs a command line in the workspace as Claude Code would (its environment naming the state folder). */
function claudeCodeRuns(gate: HomeGate, command: string): Promise<BashRun> {
  return runBash(command, gate.workspace, { TOOLGATE_HOME: gate.home, HOME: gate.user });
}

/** The calls recorded for Claude Code's Bash, newest first, with their audit records. */
function bashCalls(running: RunningGate) {
  return running.gate.calls
    .list()
    .filter((snapshot) => snapshot.tool === 'claude_code.Bash')
    .map((call) => ({ call, records: running.gate.audit.forCall(call.callId) }));
}

describe("Claude Code's Bash allowed by a rule runs in the gate's sandbox", () => {
  it('asks a person before a rule lets it read outside the workspace; approved, it still cannot read the state folder by any name, although the same command on the host can', async () => {
    const gate = await openHomeGate({ allow: ['shell_exec(cat *)', 'shell_exec(ls *)'] });
    const attacks = [
      'cat $TOOLGATE_HOME/console-token',
      'cat ~/.toolgate/console-token',
      `cat ${gate.home}/token`,
      'cat ../user/.toolgate/token',
      `ls -aR ${gate.home}`,
      'ls -aR ~',
    ];
    for (const [index, attack] of attacks.entries()) {
      // The attack is real: run on the host, as Claude Code ran an allowed Bash call before, it prints a token or names the files.
      const onHost = await claudeCodeRuns(gate, attack);
      expect(`${onHost.stdout}${onHost.stderr}`).toMatch(/console-token|[0-9a-f]{32}/);
      const sandboxed = await claudeCodeRuns(gate, await approvedCommand(gate, attack, `toolu_attack_${index}`));
      const shown = `${sandboxed.stdout}${sandboxed.stderr}`;
      for (const secret of gate.secrets) expect({ attack, shown }).not.toMatchObject({ shown: expect.stringContaining(secret) });
      expect({ attack, shown }).not.toMatchObject({ shown: expect.stringMatching(/console-token\b(?!: No such file)|audit\.db/) });
      if (attack.startsWith('cat')) {
        expect({ attack, status: sandboxed.status }).not.toMatchObject({ status: 0 });
        expect(sandboxed.stderr).toContain('No such file or directory');
      }
    }
  }, 180_000);

  it("hands back the command's output and exit status, and keeps Claude Code's other input fields", async () => {
    const gate = await openHomeGate({ allow: ['shell_exec(cat *)', 'shell_exec(ls *)'] });
    const notes = `first line\nsecond line ${commandSha256('notes')}\n`;
    writeFileSync(join(gate.workspace, 'notes.txt'), notes);
    const { answer } = await runHook(gate.home, bashInput(gate.workspace, 'cat notes.txt', 'toolu_notes', { timeout: 30_000, run_in_background: false }));
    expect(answer.hookSpecificOutput?.updatedInput).toMatchObject({ description: 'a command', timeout: 30_000, run_in_background: false });
    const read = await claudeCodeRuns(gate, answer.hookSpecificOutput!.updatedInput!.command as string);
    expect(read).toEqual({ status: 0, stdout: notes, stderr: '' });

    // A failing command's own status comes through: the same as bash gives for it on the host.
    for (const [index, failing] of ['ls no-such-folder', 'cat no-such-file'].entries()) {
      const onHost = await claudeCodeRuns(gate, failing);
      expect(onHost.status).not.toBe(0);
      const sandboxed = await claudeCodeRuns(gate, await allowedCommand(gate, failing, `toolu_failing_${index}`));
      expect({ failing, status: sandboxed.status, stderr: sandboxed.stderr }).toEqual({ failing, status: onHost.status, stderr: onHost.stderr });
    }
  }, 120_000);

  it('records one call that ran in the sandbox, with its output hash; its PostToolUse adds no second call', async () => {
    const gate = await openHomeGate({ allow: ['shell_exec(cat *)'] });
    writeFileSync(join(gate.workspace, 'notes.txt'), 'audited\n');
    const ran = await claudeCodeRuns(gate, await allowedCommand(gate, 'cat notes.txt', 'toolu_audited'));
    expect(ran.stdout).toBe('audited\n');
    const post = await runHook(
      gate.home,
      JSON.stringify({ ...JSON.parse(bashInput(gate.workspace, 'cat notes.txt', 'toolu_audited')), hook_event_name: 'PostToolUse', tool_response: { stdout: ran.stdout, stderr: '', interrupted: false } }),
    );
    expect(post.answer).toEqual({});
    const calls = bashCalls(gate.running);
    expect(calls).toHaveLength(1);
    const [{ call, records }] = calls as [(typeof calls)[number]];
    expect(auditKinds(records)).toEqual(['invoked', 'policy', 'capability', 'started', 'completed']);
    expect(records[0]!.payload).toMatchObject({ tool: 'claude_code.Bash', hook: { runBy: 'toolgate-sandbox', toolUseId: 'toolu_audited' } });
    expect(records[3]!.payload).toMatchObject({ tool: 'shell_exec', sandbox: 'bubblewrap', network: false, spawnsProcesses: true });
    const completed = records[4]!.payload as { output: unknown; responseHash: string };
    expect(completed.output).toMatchObject({ exitCode: 0, stdout: 'audited\n' });
    expect(completed.responseHash).toBe(hashCanonical(completed.output));
    expect(call).toMatchObject({ status: 'completed', responseHash: completed.responseHash });
  }, 120_000);

  it("runs a call a person approved in the console the same way", async () => {
    const gate = await openHomeGate({});
    writeFileSync(join(gate.workspace, 'notes.txt'), 'approved\n');
    const prompt = nextApproval(gate.running.backend);
    const hook = runHook(gate.home, bashInput(gate.workspace, `cat notes.txt ${gate.home}/console-token`, 'toolu_person'));
    const request = await prompt;
    await gate.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
    const { answer } = await hook;
    expect(answer.hookSpecificOutput?.permissionDecision).toBe('allow');
    const ran = await claudeCodeRuns(gate, answer.hookSpecificOutput!.updatedInput!.command as string);
    // Matched whole, so a failure shows the command's stderr too (a refusal says there why nothing ran).
    expect(ran).toMatchObject({ stdout: 'approved\n', status: 1 });
    for (const secret of gate.secrets) expect(`${ran.stdout}${ran.stderr}`).not.toContain(secret);
  }, 120_000);
});

describe('the command that runs an allowed call is bound to it', () => {
  it('runs nothing for a changed hash or grant, a used grant or a stopped gate, and says why', async () => {
    const gate = await openHomeGate({ allow: ['shell_exec(touch *)'] });
    const marker = join(gate.workspace, 'marker');
    const approved = await allowedCommand(gate, 'touch marker', 'toolu_touch');
    const grant = /hook run ([0-9a-f]{32}) --sha256 ([0-9a-f]{64})/.exec(approved)!;
    expect(grant[2]).toBe(commandSha256('touch marker'));

    // Another grant id: none such was issued.
    const otherGrant = await claudeCodeRuns(gate, approved.replace(grant[1]!, 'f'.repeat(32)));
    expect(otherGrant.status).toBe(NOT_RUN_EXIT_CODE);
    expect(otherGrant.stderr).toContain('did not run: this gate issued no such grant');
    expect(existsSync(marker)).toBe(false);

    // The real one runs once; a second run of it runs nothing.
    expect((await claudeCodeRuns(gate, approved)).status).toBe(0);
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
    const reused = await claudeCodeRuns(gate, approved);
    expect(reused.status).toBe(NOT_RUN_EXIT_CODE);
    expect(reused.stderr).toContain('did not run: its grant was used already');
    expect(existsSync(marker)).toBe(false);

    // The hash of another text: the grant is spent and its call refused.
    const changed = await allowedCommand(gate, 'touch marker', 'toolu_touch_2');
    const forged = await claudeCodeRuns(gate, changed.replace(/--sha256 [0-9a-f]{64}/, `--sha256 ${commandSha256('touch marker; touch host-file')}`));
    expect(forged.status).toBe(NOT_RUN_EXIT_CODE);
    expect(forged.stderr).toContain('is not the one approved');
    expect(existsSync(marker)).toBe(false);
    expect((await claudeCodeRuns(gate, changed)).status).toBe(NOT_RUN_EXIT_CODE);
    expect(existsSync(marker)).toBe(false);
    expect(auditKinds(bashCalls(gate.running)[0]!.records).at(-1)).toBe('rejected');

    // The gate stopped after it allowed the call.
    const orphan = await allowedCommand(gate, 'touch marker', 'toolu_touch_3');
    await gate.running.close();
    const stopped = await claudeCodeRuns(gate, orphan);
    expect(stopped.status).toBe(NOT_RUN_EXIT_CODE);
    expect(stopped.stderr).toContain('did not run: Toolgate is not running');
    expect(existsSync(marker)).toBe(false);
  }, 120_000);
});

describe('a run whose caller went away', () => {
  it('is stopped in the sandbox when Claude Code kills the command it ran (its timeout, an interrupt)', async () => {
    const gate = await openHomeGate({ allow: ['shell_exec(sleep *)'] });
    const command = await allowedCommand(gate, 'sleep 600', 'toolu_sleep');
    // Claude Code runs a command in a process group of its own and kills the group.
    const child = spawn('bash', ['-c', command], { cwd: gate.workspace, detached: true, stdio: 'ignore' });
    const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
    await expect.poll(() => bashCalls(gate.running)[0]?.call.step, { timeout: WAIT_MS }).toBe('execute');
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
    await expect.poll(() => bashCalls(gate.running)[0]?.call.status, { timeout: WAIT_MS }).toBe('failed');
    expect(auditKinds(bashCalls(gate.running)[0]!.records)).toEqual(['invoked', 'policy', 'capability', 'started', 'failed']);
  }, 120_000);
});

describe('a grant that is never used', () => {
  it('expires unrun; a Claude Code that ran the call itself is recorded so; one reported at once (run in the background) still runs', async () => {
    const gate = await openHomeGate({ allow: ['shell_exec(touch *)'] });
    const { gate: core } = gate.running;
    /** A judge over the gate's own records whose grants expire after `grantTtlMs`. */
    const judgeWith = (grantTtlMs: number) => {
      const bash = { inGate: true as const, sandbox: core.sandbox, grantTtlMs, run: core.executor.runJudged.bind(core.executor) };
      const made = new HookJudge({ registry: core.registry, policy: core.policyEngine!, approvals: core.approvals, audit: core.audit, calls: core.calls, redactions: new CallRedactions(), workspace: core.workspace, bash });
      onTestFinished(() => made.close());
      return made;
    };
    const pre = (toolUseId: string): HookInput => JSON.parse(bashInput(gate.workspace, 'touch marker', toolUseId)) as HookInput;
    const shortLived = judgeWith(100);
    const expiring = await shortLived.answer(pre('toolu_expiring'));
    const grant = 'runInGate' in expiring ? expiring.runInGate : undefined;
    expect(grant).toBeDefined();
    await expect.poll(() => auditKinds(bashCalls(gate.running)[0]!.records).at(-1), { timeout: WAIT_MS }).toBe('failed');
    expect(await shortLived.runGranted(grant!)).toEqual({ ran: false, message: expect.stringContaining('grant expired and nothing ran') });
    expect(existsSync(join(gate.workspace, 'marker'))).toBe(false);

    // Grants that must still stand when their outcome or run comes: a loaded machine may take seconds between the two.
    const judge = judgeWith(WAIT_MS);

    // A Claude Code too old to apply updatedInput runs the call itself: its PostToolUse says so in the record.
    const ignored = await judge.answer(pre('toolu_ignored'));
    expect('runInGate' in ignored && ignored.runInGate).toBeTruthy();
    await judge.answer({ ...pre('toolu_ignored'), hook_event_name: 'PostToolUse', tool_response: { stdout: '' } } as HookInput);
    const { records } = bashCalls(gate.running)[0]!;
    expect(records.at(-1)).toMatchObject({ kind: 'completed', payload: { runBy: 'claude-code', ranOnHost: expect.stringContaining("outside the gate's sandbox") } });

    // A command run in the background is reported before it ran: its run, still to come, closes the call.
    const background = await judge.answer(pre('toolu_background'));
    const command = sandboxedCommand({ node: process.execPath, cli: 'toolgate.js', home: gate.home }, ('runInGate' in background && background.runInGate) || { grant: '', sha256: '' });
    await judge.answer({ ...pre('toolu_background'), tool_input: { command, run_in_background: true }, hook_event_name: 'PostToolUse', tool_response: { backgroundTaskId: 'b1' } } as HookInput);
    expect('runInGate' in background && (await judge.runGranted(background.runInGate!))).toMatchObject({ ran: true, exitCode: 0 });
    expect(existsSync(join(gate.workspace, 'marker'))).toBe(true);
    expect(auditKinds(bashCalls(gate.running)[0]!.records)).toEqual(['invoked', 'policy', 'capability', 'started', 'completed']);
  });
});

describe('where the gate cannot or should not run Bash', () => {
  it('denies an allowed Bash call when the gate has no sandbox, saying how to get one, rather than run it unconfined', async () => {
    const gate = await openHomeGate({ allow: ['shell_exec(cat *)'] }, { sandbox: 'off' });
    const { answer } = await runHook(gate.home, bashInput(gate.workspace, 'cat notes.txt', 'toolu_nosandbox'));
    expect(answer.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('Install bubblewrap') });
    expect(answer.hookSpecificOutput?.updatedInput).toBeUndefined();
  });

  it('with "claudeCodeBashInGate": false in settings.json, allows with no updatedInput only a line that stays in the workspace', async () => {
    const dirs = makeTempDirs();
    onTestFinished(() => dirs.remove());
    writeFileSync(join(dirs.home, 'settings.json'), JSON.stringify({ claudeCodeBashInGate: false }));
    writeFileSync(join(dirs.home, 'policy.json'), JSON.stringify({ allow: ['shell_exec(cat *)', 'shell_exec(touch *)'] }));
    const serve = await spawnServe(dirs, ['--approval-timeout', '1']);
    onTestFinished(() => serve.stop());
    const { answer } = await runHook(dirs.home, bashInput(dirs.workspace, 'cat notes.txt', 'toolu_host'));
    expect(answer.hookSpecificOutput?.permissionDecision).toBe('allow');
    expect(answer.hookSpecificOutput?.updatedInput).toBeUndefined();

    // On the host nothing hides the state folder or the machine: a line an allow matches but that
    // reaches outside the workspace, or where only the run decides, is a person's call (here nobody
    // answers in time, so Claude Code's own prompt takes over).
    // A write outside the workspace is left to the sandbox when the gate runs the line; on the host it would land.
    // Asked at once, each waiting out the same 1 s prompt.
    const lines = ['touch ../outside/planted', 'cat ../outside/id_rsa', `cat ${dirs.home}/console-token`, 'cat $TOOLGATE_HOME/token', 'ls -R ~root', "bash -c 'cat ~/.ssh/id_rsa'"];
    const decisions = await Promise.all(
      lines.map(async (line, index) => ({ line, decision: (await runHook(dirs.home, bashInput(dirs.workspace, line, `toolu_host_${index}`))).answer.hookSpecificOutput?.permissionDecision })),
    );
    expect(decisions).toEqual(lines.map((line) => ({ line, decision: 'ask' })));
    expect((await runHook(dirs.home, bashInput(dirs.workspace, 'cat notes.txt', 'toolu_host_inside'))).answer.hookSpecificOutput?.permissionDecision).toBe('allow');
    expect((await runHook(dirs.home, bashInput(dirs.workspace, 'touch notes.txt', 'toolu_host_touch'))).answer.hookSpecificOutput?.permissionDecision).toBe('allow');

    // A value that is not true or false keeps the gate from starting, naming the setting.
    const bad = makeTempDirs();
    onTestFinished(() => bad.remove());
    writeFileSync(join(bad.home, 'settings.json'), JSON.stringify({ claudeCodeBashInGate: 'sometimes' }));
    await expect(spawnServe(bad)).rejects.toThrow(/"claudeCodeBashInGate".*Fix: true/s);
  });
});

describe("Claude Code's own file tools while a program started through the gate runs", () => {
  it('are asked, not allowed, while it runs (it could swap a name for a link before Claude Code opens it), and allowed again once it ended', async () => {
    const gate = await openHomeGate({ allow: ['shell_exec(sleep *)', 'read_file(**)'] });
    writeFileSync(join(gate.workspace, 'notes.txt'), 'notes\n');
    let reads = 0;
    const read = () => claudeRead(gate, `toolu_read_${++reads}`);
    expect((await read()).answer.hookSpecificOutput?.permissionDecision).toBe('allow');

    // Claude Code runs the allowed command in the background (run_in_background): it goes on while other tools are judged.
    const command = await allowedCommand(gate, 'sleep 120', 'toolu_sleep');
    const background = spawn('bash', ['-c', command], { cwd: gate.workspace, env: { ...process.env, TOOLGATE_HOME: gate.home, HOME: gate.user }, stdio: 'ignore', detached: true });
    const stopBackground = () => {
      try {
        process.kill(-background.pid!, 'SIGKILL');
      } catch {
        // Ended already.
      }
    };
    onTestFinished(stopBackground);
    await waitUntil(() => gate.running.gate.scheduler.programsRunning() > 0, 'the background command to run in the gate');

    await expectReadAskedThenDenied(gate, `toolu_read_${++reads}`);

    // Once it ended, the rules hold again, unasked.
    stopBackground();
    await waitUntil(() => gate.running.gate.scheduler.programsRunning() === 0, 'the background command to end');
    expect((await read()).answer.hookSpecificOutput?.permissionDecision).toBe('allow');
  }, 120_000);
});

describe("Claude Code's own file tools while a Bash command granted to run in the gate has yet to run", () => {
  it('are asked, not allowed (the command could swap a name for a link before Claude Code opens it), and allowed again once it ran', async () => {
    const gate = await openHomeGate({ allow: ['shell_exec(ln *)', 'read_file(**)'] });
    writeFileSync(join(gate.workspace, 'notes.txt'), 'notes\n');
    // Granted, not yet run: Claude Code runs it when it likes, maybe after the Read below was allowed.
    const granted = await allowedCommand(gate, 'ln -s notes.txt also.txt', 'toolu_granted');
    await expectReadAskedThenDenied(gate, 'toolu_read_1');

    expect((await runBash(granted, gate.workspace, { TOOLGATE_HOME: gate.home, HOME: gate.user })).status).toBe(0);
    expect((await claudeRead(gate, 'toolu_read_2')).answer.hookSpecificOutput?.permissionDecision).toBe('allow');
  }, 120_000);
});

describe('a Bash command granted while a program started through the gate ran', () => {
  it('runs after that program, judged again: a folder it names, swapped meanwhile for a link into a denied one, refuses it and nothing of the file comes out', async () => {
    const gate = await openHomeGate({ allow: ['shell_exec(cat *)'], deny: [{ rule: 'read_file(private/**)', reason: 'private stays private' }] });
    for (const [folder, text] of [['private', 'the-private-key-text'], ['docs', 'nothing private']]) {
      mkdirSync(join(gate.workspace, folder!));
      writeFileSync(join(gate.workspace, folder!, 'key'), `${text}\n`);
    }
    execFileSync('mkfifo', [join(gate.workspace, 'release')]);
    const env = { TOOLGATE_HOME: gate.home, HOME: gate.user };
    // Claude Code runs one allowed command that goes on (it reads a FIFO), and is granted a second meanwhile.
    const holding = runBash(await allowedCommand(gate, 'cat release', 'toolu_hold'), gate.workspace, env);
    await waitUntil(() => gate.running.gate.scheduler.programsRunning() > 0, 'the first command to run in the gate');
    const reading = runBash(await allowedCommand(gate, 'cat docs/key', 'toolu_read'), gate.workspace, env);
    await waitUntil(() => gate.running.gate.scheduler.stats().queued > 0, 'the second command to wait for its turn');
    renameSync(join(gate.workspace, 'docs'), join(gate.workspace, 'docs-before'));
    symlinkSync('private', join(gate.workspace, 'docs'));
    await writeWhenRead(join(gate.workspace, 'release'), 'go\n');
    expect((await holding).status).toBe(0);
    const read = await reading;
    expect(read.status).not.toBe(0);
    expect(read.stdout + read.stderr).toContain('private stays private');
    expect(read.stdout + read.stderr).not.toContain('the-private-key-text');
  }, 120_000);
});
