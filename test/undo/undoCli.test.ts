/**
 * `toolgate effects`, `toolgate undo` and `toolgate rewind` as a person types them, against a running
 * gate: each outcome has its own exit code, and a conflict prints the three versions and writes nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../integration/cliProcesses';
import { callIdOf, connectMcp, startTestGate, textOf, type TestGate, approveEveryPrompt } from '../integration/helpers';
import { UNDO_EXIT } from '../../main/cli/undoSpecs';

let gate: TestGate;
let client: Client;

beforeAll(async () => {
  gate = await startTestGate();
  approveEveryPrompt(gate.running.backend);
  client = await connectMcp(gate.running.mcpUrl, gate.token);
});

afterAll(async () => {
  await client?.close();
  await gate?.close();
});

async function agentCall(name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, textOf(result)).toBeFalsy();
  return callIdOf(result);
}

const cli = (...args: string[]) => runCli(args, gate.dirs.home);
const file = () => readFileSync(join(gate.dirs.workspace, 'plan.md'), 'utf8');

describe('toolgate effects, undo and rewind', () => {
  it('prints a call’s effects, plans with --dry-run, stops on a conflict with its own exit code, and undoes once told per file', async () => {
    await agentCall('write_file', { path: 'plan.md', content: 'first plan\n' });
    const callId = await agentCall('shell_exec', { command: 'echo "second plan" > plan.md && touch notes.md' });

    const effects = await cli('effects', callId);
    expect(effects.code, effects.stderr).toBe(0);
    expect(effects.stdout).toMatch(/modified\s+plan\.md/);
    expect(effects.stdout).toMatch(/created\s+notes\.md/);

    const dry = await cli('undo', callId, '--dry-run');
    expect(dry.code, dry.stderr).toBe(UNDO_EXIT.planned);
    expect(dry.stdout).toContain('+first plan');
    expect(file()).toBe('second plan\n');

    writeFileSync(join(gate.dirs.workspace, 'plan.md'), 'the person edited it\n');
    const conflict = await cli('undo', callId);
    expect(conflict.code).toBe(UNDO_EXIT.conflict);
    expect(conflict.stderr).toContain('CONFLICT restore: plan.md');
    expect(conflict.stderr).toMatch(/before the call [0-9a-f]{12}\s+after it [0-9a-f]{12}\s+now [0-9a-f]{12}/);
    expect(file()).toBe('the person edited it\n');

    const kept = await cli('undo', callId, '--keep', 'plan.md');
    expect(kept.code, kept.stderr).toBe(UNDO_EXIT.undone);
    expect(file()).toBe('the person edited it\n');

    const again = await cli('undo', callId, '--keep', 'plan.md');
    expect(again.code).toBe(UNDO_EXIT.nothing);

    const rewound = await cli('rewind', callId, '--restore-anyway', 'plan.md', '--json');
    expect(rewound.code, rewound.stderr).toBe(UNDO_EXIT.undone);
    expect(JSON.parse(rewound.stdout)).toMatchObject({ outcome: 'undone' });
    expect(file()).toBe('first plan\n');
  });

  it('says nothing is to undo for a call that changed nothing, and refuses an unknown call', async () => {
    const callId = await agentCall('shell_exec', { command: 'true' });
    expect((await cli('undo', callId)).code).toBe(UNDO_EXIT.nothing);
    expect((await cli('effects', callId)).code).toBe(UNDO_EXIT.nothing);
    const unknown = await cli('undo', 'no-such-call');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no call "no-such-call"');
  });
});
