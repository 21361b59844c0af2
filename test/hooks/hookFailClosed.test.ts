/**
 * What `toolgate hook claude-code` prints when it cannot get a plain answer from the gate: input it
 * cannot read is denied, a gate it cannot reach or that answers oddly gets `ask` (Claude Code's own
 * prompt decides), and never a silent allow. The gate here is a loopback stand-in whose every reply
 * the test chooses; the real gate's answers are in claudeCodeHook.test.ts and hookHostile.test.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { judgeHookInput, MAX_HOOK_INPUT_BYTES, readBounded } from '../../main/hooks/hookClient';
import type { HookOutput } from '../../main/hooks/hookInput';
import { WAIT_MS } from '../fixtures/processes';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

const LAUNCHER = { node: '/usr/bin/node', cli: '/opt/toolgate/bin/toolgate.js', home: '/home/me/.toolgate' };
const GRANT = { grant: 'a'.repeat(32), sha256: 'b'.repeat(64) };

let home: string;
let server: Server | undefined;
beforeEach(() => {
  home = makeTempFolder();
});
afterEach(async () => {
  if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
  server = undefined;
  removeTempFolder(home);
});

/** A PreToolUse (or another event) as Claude Code sends it. */
function input(toolName = 'Bash', event = 'PreToolUse', toolInput: Record<string, unknown> = { command: 'ls', timeout: 5000 }) {
  return {
    session_id: '4f1c2b8e-9a3d-4c57-b1e2-7d0f6a9c3e21',
    cwd: home,
    hook_event_name: event,
    tool_name: toolName,
    tool_input: toolInput,
    tool_use_id: 'toolu_01FailClosed',
    ...(event === 'PostToolUse' ? { tool_response: {} } : {}),
  };
}

// The hook waits as long as a loaded machine may take to answer: a wait that ran out would answer ask, not what the stand-in gate said.
const judge = (value: unknown) => judgeHookInput(Buffer.from(JSON.stringify(value)), home, WAIT_MS, LAUNCHER);

function decision(output: HookOutput): string | undefined {
  return 'hookSpecificOutput' in output ? output.hookSpecificOutput.permissionDecision : undefined;
}

/** Records a gate for this state folder at `port`, alive as this process. */
function recordGate(port: number): void {
  writeFileSync(join(home, 'gate.json'), JSON.stringify({ pid: process.pid, port, mcpUrl: '', consoleUrl: '', workspace: home }));
  writeFileSync(join(home, 'token'), 'token\n');
}

/** A stand-in gate answering every request with this status and JSON body. */
async function gateAnswering(status: number, body: unknown): Promise<void> {
  server = createServer((_request, response) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  recordGate((server.address() as AddressInfo).port);
}

const allow = (extra: Record<string, unknown> = {}) => ({
  hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'policy allows it' },
  ...extra,
});

describe('input the hook cannot read is denied', () => {
  it('denies input over the size limit, and reads input at the limit', async () => {
    expect(await readBounded(Readable.from([Buffer.alloc(MAX_HOOK_INPUT_BYTES + 1)]), MAX_HOOK_INPUT_BYTES)).toBeUndefined();
    expect((await readBounded(Readable.from([Buffer.alloc(MAX_HOOK_INPUT_BYTES)]), MAX_HOOK_INPUT_BYTES))?.length).toBe(MAX_HOOK_INPUT_BYTES);
    const answer = await judgeHookInput(undefined, home, 2000, LAUNCHER);
    expect(answer).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining(`over ${MAX_HOOK_INPUT_BYTES} bytes`) } });
  });

  it('denies input that is not JSON, naming why', async () => {
    const answer = await judgeHookInput(Buffer.from('{"tool_name": "Bash",'), home, 2000, LAUNCHER);
    expect(answer).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('not valid JSON') } });
  });

  it('with no gate running, denies input that is not a hook input, asks about a PreToolUse, and answers {} to an outcome', async () => {
    expect(decision(await judge({ hook_event_name: 'PreToolUse', tool_name: 42 }))).toBe('deny');
    const answer = await judge(input());
    expect(answer).toMatchObject({ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: expect.stringContaining('Toolgate is not running') } });
    expect(await judge(input('Bash', 'PostToolUse'))).toEqual({});
  });

  it('denies what the gate refused as unreadable (400, 413), naming the gate\'s reason', async () => {
    for (const status of [400, 413]) {
      await gateAnswering(status, { error: { message: `refused ${status}` } });
      expect(await judge(input())).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining(`refused ${status}`) } });
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    }
  });
});

describe('a gate that cannot judge gets ask, never allow', () => {
  it('asks when the recorded gate does not listen', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    recordGate(port);
    expect(await judge(input())).toMatchObject({ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: expect.stringContaining('Toolgate is not running') } });
  });

  it('asks when the gate refuses for another reason (a stale token, an error of its own)', async () => {
    for (const status of [401, 500]) {
      await gateAnswering(status, { error: { message: `status ${status}` } });
      expect(await judge(input())).toMatchObject({ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: expect.stringContaining(`${status}`) } });
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    }
  });

  it('asks when the gate answers something that is not a hook answer, and answers {} to an outcome either way', async () => {
    await gateAnswering(200, { permissionDecision: 'allow' });
    expect(await judge(input())).toMatchObject({ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: expect.stringContaining('not a hook answer') } });
    expect(await judge(input('Bash', 'PostToolUse'))).toEqual({});
  });

  it('asks when the gate answers a PreToolUse without a decision, which would leave Claude Code to its own rules', async () => {
    await gateAnswering(200, {});
    expect(await judge(input())).toMatchObject({ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: expect.stringContaining('without a decision') } });
  });

  it('answers {} to an outcome even when the gate answers it with a decision', async () => {
    await gateAnswering(200, allow());
    expect(await judge(input('Bash', 'PostToolUse'))).toEqual({});
  });

  it('asks when the gate hands a run grant with anything but an allowed Bash call', async () => {
    await gateAnswering(200, allow({ runInGate: GRANT }));
    expect(decision(await judge(input('Write', 'PreToolUse', { file_path: join(home, 'a'), content: 'x' })))).toBe('ask');
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    await gateAnswering(200, { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'p' }, runInGate: GRANT });
    expect(await judge(input())).toMatchObject({ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: expect.stringContaining('grant to run') } });
  });
});

describe('what the gate decided goes through', () => {
  it('passes the gate\'s allow or deny on as it is', async () => {
    await gateAnswering(200, allow());
    expect(await judge(input())).toEqual(allow());
  });

  it('runs an allowed Bash call with a grant as the gate\'s command, keeping Claude Code\'s other fields', async () => {
    await gateAnswering(200, allow({ runInGate: GRANT }));
    const answer = await judge(input());
    expect(decision(answer)).toBe('allow');
    const updated = 'hookSpecificOutput' in answer ? answer.hookSpecificOutput.updatedInput : undefined;
    expect(updated).toMatchObject({ timeout: 5000, command: expect.stringContaining(`hook run ${GRANT.grant} --sha256 ${GRANT.sha256}`) });
    expect(updated?.command).not.toBe('ls');
  });

  it('answers {} to an outcome the gate took', async () => {
    await gateAnswering(200, {});
    expect(await judge(input('Bash', 'PostToolUse'))).toEqual({});
  });
});
