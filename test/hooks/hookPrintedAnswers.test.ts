/**
 * What `toolgate hook claude-code` prints and runs, in-process: the one ASCII line Claude Code reads
 * (whether stdin came as bytes or as text), the reason a refused input is given, how long the hook
 * waits for a gate, the command that runs an allowed Bash call, and an answer (never a crash) for
 * input that is JSON but no object when the gate cannot judge it. The gate here is a loopback
 * stand-in; the real gate's answers are in claudeCodeHook.test.ts.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerClaudeCodeHook, hookWaitMs, judgeHookInput, MAX_HOOK_INPUT_BYTES } from '../../main/hooks/hookClient';
import type { HookOutput } from '../../main/hooks/hookInput';
import { launchDefaults } from '../../main/settings/launchSettings';
import { shellQuote } from '../../main/tools/shell/shellQuote';
import { WAIT_MS } from '../fixtures/processes';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

/** This checkout's CLI, found from this file rather than by the code under test. */
const CHECKOUT_CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/toolgate.js');
const GRANT = { grant: 'c'.repeat(32), sha256: 'd'.repeat(64) };

let home: string;
let gate: Server | undefined;
beforeEach(() => {
  home = makeTempFolder();
});
afterEach(async () => {
  if (gate) await new Promise<void>((closed) => gate!.close(() => closed()));
  gate = undefined;
  removeTempFolder(home);
});

/** A Bash PreToolUse as Claude Code sends it. */
const bashCall = (command: string) => ({
  session_id: '0d8f3c1a-5b7e-4a92-8c6d-2e1f9a7b3c45',
  cwd: home,
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command, description: 'lists files' },
  tool_use_id: 'toolu_01PrintedAnswer',
});

/** Writes this state folder's record of a gate on `port`, alive as this process, with its token. */
function recordGateOn(port: number): void {
  writeFileSync(join(home, 'gate.json'), JSON.stringify({ pid: process.pid, port, mcpUrl: '', consoleUrl: '', workspace: home }));
  writeFileSync(join(home, 'token'), 'token\n');
}

/** Starts a stand-in gate that allows every call with a grant to run it in the gate. */
async function gateGrantingRuns(): Promise<void> {
  const body = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'policy allows it' }, runInGate: GRANT };
  gate = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
  await new Promise<void>((listening) => gate!.listen(0, '127.0.0.1', listening));
  recordGateOn((gate.address() as AddressInfo).port);
}

const decisionOf = (output: HookOutput) => ('hookSpecificOutput' in output ? output.hookSpecificOutput : undefined);

describe('the line Claude Code reads', () => {
  it('is one line of ASCII JSON, also when stdin comes as text holding characters beyond ASCII', async () => {
    const line = await answerClaudeCodeHook(Readable.from([JSON.stringify(bashCall('echo "héllo wörld" ✓'))]), home);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.trimEnd()).not.toContain('\n');
    expect(line).toMatch(/^[\x20-\x7e]*\n$/);
    expect(JSON.parse(line)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: expect.stringContaining('Toolgate is not running') } });
  });

  it('denies text over the size limit in bytes though not in characters', async () => {
    const text = JSON.stringify(bashCall(`echo ${'é'.repeat(MAX_HOOK_INPUT_BYTES / 2)}`));
    expect(text.length).toBeLessThan(MAX_HOOK_INPUT_BYTES);
    const answer = JSON.parse(await answerClaudeCodeHook(Readable.from([text]), home)) as HookOutput;
    expect(decisionOf(answer)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining(`over ${MAX_HOOK_INPUT_BYTES} bytes`) });
  });

  it('names the field of an input that is not a hook input', async () => {
    const answer = await judgeHookInput(Buffer.from(JSON.stringify({ ...bashCall('ls'), tool_name: 42 })), home, 2000);
    expect(decisionOf(answer)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/^Toolgate refuses it: .*tool_name/) });
  });
});

describe('JSON that is no object, with a gate that cannot judge it', () => {
  it('is denied as unreadable, as it is with no gate at all, and never crashes the hook', async () => {
    const probe = createServer();
    await new Promise<void>((listening) => probe.listen(0, '127.0.0.1', listening));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((closed) => probe.close(() => closed()));
    recordGateOn(port);
    for (const text of ['null', '7', '"PreToolUse"', '[]']) {
      const answer = await judgeHookInput(Buffer.from(text), home, 2000);
      expect(decisionOf(answer)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('not an object') });
    }
  });
});

describe('the command that runs an allowed Bash call', () => {
  it('starts this Node and this checkout\'s CLI, with the state folder of the gate that allowed it', async () => {
    await gateGrantingRuns();
    const command = decisionOf(await judgeHookInput(Buffer.from(JSON.stringify(bashCall('ls'))), home, WAIT_MS))?.updatedInput?.command;
    expect(command).toEqual(expect.stringMatching(new RegExp(`^TOOLGATE_HOME=\\S+ \\S+ \\S+ hook run ${GRANT.grant} --sha256 ${GRANT.sha256}`)));
    const [homeWord, nodeWord, cliWord] = String(command).split(' ');
    expect(homeWord).toBe(`TOOLGATE_HOME=${shellQuote(home)}`);
    expect(nodeWord).toBe(shellQuote(process.execPath));
    expect(cliWord).toBe(shellQuote(CHECKOUT_CLI));
  });

  it('starts the launcher it was given instead, when one is', async () => {
    await gateGrantingRuns();
    const launcher = { node: '/opt/node22/bin/node', cli: '/opt/toolgate/bin/toolgate.js', home: '/srv/gate-state' };
    const command = decisionOf(await judgeHookInput(Buffer.from(JSON.stringify(bashCall('ls'))), home, WAIT_MS, launcher))?.updatedInput?.command;
    expect(String(command).split(' ').slice(0, 3)).toEqual([`TOOLGATE_HOME=${launcher.home}`, launcher.node, launcher.cli]);
  });
});

describe('how long the hook waits for the gate', () => {
  /** The wait with this settings.json text (none when undefined). */
  function waitWith(settings: string | undefined): number {
    if (settings !== undefined) writeFileSync(join(home, 'settings.json'), settings);
    return hookWaitMs(home);
  }
  /** The gate's own prompt timeout when settings.json names none, plus half a minute. */
  const defaultWait = () => (launchDefaults(home).approvalTimeoutSeconds + 30) * 1000;

  it('outlasts the prompt timeout settings.json gives by half a minute, at both ends of its range', () => {
    expect(waitWith('{"approvalTimeoutSeconds": 1}')).toBe(31_000);
    expect(waitWith('{"approvalTimeoutSeconds": 86400}')).toBe(86_430_000);
    expect(waitWith('{"approvalTimeoutSeconds": 600, "other": true}')).toBe(630_000);
  });

  it('outlasts the gate\'s default prompt timeout when settings.json is missing, unreadable or names none a gate would start with', () => {
    expect(waitWith(undefined)).toBe(defaultWait());
    for (const settings of ['{', 'null', '{}', ...[0, -5, 86_401, 1.5, '"60"', 'true'].map((value) => `{"approvalTimeoutSeconds": ${value}}`)]) {
      expect(waitWith(settings)).toBe(defaultWait());
    }
  });
});
