/**
 * Undo through the real gate: the agent (the official MCP client) runs shell commands in bash inside
 * bubblewrap and writes files; the person undoes, redoes and rewinds through the console bridge.
 */
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallEffectsSchema, UndoReportSchema, type UndoReport } from '../../shared/effects';
import { BridgeClient, callIdOf, connectMcp, startTestGate, textOf, type TestGate, approveEveryPrompt } from '../integration/helpers';
import { treeListing } from './undoTree';

let gate: TestGate;
let client: Client;
let bridge: BridgeClient;

beforeAll(async () => {
  gate = await startTestGate();
  approveEveryPrompt(gate.running.backend);
  client = await connectMcp(gate.running.mcpUrl, gate.token);
  bridge = await BridgeClient.open(gate.running.port, gate.consoleToken);
});

afterAll(async () => {
  bridge?.close();
  await client?.close();
  await gate?.close();
});

const ws = () => gate.dirs.workspace;

/** Runs a tool as the agent; answers the call's id (the call must succeed). */
async function agentCall(name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, textOf(result)).toBeFalsy();
  return callIdOf(result);
}

/** Sends an undo over the console bridge, as the console and the CLI do. */
async function undo(params: { callId: string; rewind?: boolean; dryRun?: boolean; choices?: Record<string, string> }): Promise<UndoReport> {
  const reply = await bridge.request('undoCall', params);
  if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
  return UndoReportSchema.parse(reply.value);
}

describe('undo of a shell command run in the sandbox', () => {
  it('puts back exactly what it created, edited, deleted, renamed and re-moded (binary file, symlink, empty folder, file↔folder), and a redo does it again', async () => {
    expect(gate.running.gate.sandbox.kind).toBe('bubblewrap');
    mkdirSync(join(ws(), 'shell/sub'), { recursive: true });
    writeFileSync(join(ws(), 'shell/edit.txt'), 'line one\nline two\n');
    writeFileSync(join(ws(), 'shell/gone.txt'), 'to be deleted\n');
    writeFileSync(join(ws(), 'shell/move.txt'), 'moving house\n');
    writeFileSync(join(ws(), 'shell/run.sh'), 'echo hi\n');
    chmodSync(join(ws(), 'shell/run.sh'), 0o644);
    writeFileSync(join(ws(), 'shell/image.bin'), Buffer.from([0, 1, 2, 255, 254, 0, 10]));
    writeFileSync(join(ws(), 'shell/flip'), 'a file that becomes a folder\n');
    mkdirSync(join(ws(), 'shell/empty-before'));
    symlinkSync('edit.txt', join(ws(), 'shell/link'));
    const before = treeListing(ws());
    const command = [
      'cd shell',
      'echo "line three" >> edit.txt',
      'rm gone.txt',
      'mv move.txt moved.txt',
      'chmod 755 run.sh',
      'printf "\\x00\\x01new" > image.bin',
      'head -c 300 /dev/urandom > random.bin',
      'rm flip && mkdir flip && echo inside > flip/inner.txt',
      'rmdir empty-before && mkdir empty-after',
      'ln -sfn moved.txt link',
      'ln -s run.sh newlink',
      'echo fresh > sub/new.txt',
    ].join(' && ');
    const callId = await agentCall('shell_exec', { command });
    const after = treeListing(ws());
    expect(after).not.toEqual(before);

    const recorded = await bridge.request('callEffects', { callId });
    expect(recorded.ok).toBe(true);
    const effects = CallEffectsSchema.parse((recorded as { value: unknown }).value);
    const kinds = Object.fromEntries(effects.effects.map((effect) => [effect.path, effect.kind]));
    expect(kinds).toMatchObject({
      'shell/edit.txt': 'modified',
      'shell/gone.txt': 'deleted',
      'shell/moved.txt': 'renamed',
      'shell/run.sh': 'mode-changed',
      'shell/image.bin': 'modified',
      'shell/random.bin': 'created',
      'shell/flip': 'type-changed',
      'shell/empty-before': 'deleted',
      'shell/empty-after': 'created',
      'shell/link': 'modified',
      'shell/newlink': 'created',
    });

    const planned = await undo({ callId, dryRun: true });
    expect(planned.outcome, planned.reason).toBe('planned');
    expect(planned.changes.find((change) => change.path === 'shell/edit.txt')!.diff).toContain('-line three');
    expect(treeListing(ws())).toEqual(after);

    const undone = await undo({ callId });
    expect(undone.outcome, undone.reason).toBe('undone');
    expect(treeListing(ws())).toEqual(before);

    // The undo is a call of its own, decided by the person; undoing it is a redo.
    const undoRecords = gate.running.gate.audit.forCall(undone.undoCallId!);
    expect(undoRecords[0]!.payload).toMatchObject({ tool: 'undo', source: 'console', undoOf: [callId] });
    expect(undoRecords.find((record) => record.kind === 'approval-decided')!.payload).toMatchObject({ outcome: 'approved' });
    const redone = await undo({ callId: undone.undoCallId! });
    expect(redone.outcome, redone.reason).toBe('undone');
    expect(treeListing(ws())).toEqual(after);
  });

  it('stops on a file changed after the call, naming the versions before the call, after it and now, and writes nothing until told per file', async () => {
    const first = await agentCall('write_file', { path: 'conflict/notes.txt', content: 'before the call\n' });
    const callId = await agentCall('write_file', { path: 'conflict/notes.txt', content: 'after the call\n' });
    // The person's editor changes it afterwards.
    writeFileSync(join(ws(), 'conflict/notes.txt'), 'edited by the person\n');
    const report = await undo({ callId });
    expect(report.outcome).toBe('conflict');
    const change = report.changes.find((item) => item.path === 'conflict/notes.txt')!;
    expect(change.conflict).toBe(true);
    expect([change.target?.hash, change.expected?.hash, change.current?.hash].every((hash) => typeof hash === 'string')).toBe(true);
    expect(new Set([change.target!.hash, change.expected!.hash, change.current!.hash]).size).toBe(3);
    expect(change.diff).toContain('-edited by the person');
    expect(change.diff).toContain('+before the call');
    expect(readFileSync(join(ws(), 'conflict/notes.txt'), 'utf8')).toBe('edited by the person\n');

    expect((await undo({ callId, choices: { 'conflict/notes.txt': 'keep-current' } })).outcome).toBe('nothing');
    expect(readFileSync(join(ws(), 'conflict/notes.txt'), 'utf8')).toBe('edited by the person\n');
    expect((await undo({ callId, choices: { 'conflict/notes.txt': 'restore-anyway' } })).outcome).toBe('undone');
    expect(readFileSync(join(ws(), 'conflict/notes.txt'), 'utf8')).toBe('before the call\n');
    expect(first).not.toBe(callId);
  });

  it('rewinds five calls that touched the same files, newest first, as one plan', async () => {
    mkdirSync(join(ws(), 'rewind'));
    writeFileSync(join(ws(), 'rewind/log.txt'), 'start\n');
    const before = treeListing(ws());
    const ids = [
      await agentCall('shell_exec', { command: 'echo one >> rewind/log.txt' }),
      await agentCall('edit_file', { path: 'rewind/log.txt', strategy: 'snippet', old: 'one', new: 'ONE' }),
      await agentCall('shell_exec', { command: 'cp rewind/log.txt rewind/copy.txt && echo two >> rewind/log.txt' }),
      await agentCall('write_file', { path: 'rewind/log.txt', content: 'replaced\n' }),
      await agentCall('shell_exec', { command: 'mv rewind/copy.txt rewind/kept.txt && rm rewind/log.txt' }),
    ];
    // A call that touched other files is left alone.
    const other = await agentCall('write_file', { path: 'elsewhere.txt', content: 'unrelated\n' });
    const plan = await undo({ callId: ids[0]!, rewind: true, dryRun: true });
    expect(plan.outcome, plan.reason).toBe('planned');
    expect(plan.calls).toEqual([...ids].reverse());
    expect(plan.calls).not.toContain(other);
    const rewound = await undo({ callId: ids[0]!, rewind: true });
    expect(rewound.outcome, rewound.reason).toBe('undone');
    expect(treeListing(ws()).filter((line) => !line.startsWith('elsewhere.txt'))).toEqual(before);
    expect(readFileSync(join(ws(), 'elsewhere.txt'), 'utf8')).toBe('unrelated\n');
  });

  it('says there is nothing to undo for a call that changed nothing', async () => {
    const callId = await agentCall('shell_exec', { command: 'true' });
    expect((await undo({ callId })).outcome).toBe('nothing');
  });
});
