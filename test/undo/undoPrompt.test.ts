/**
 * The prompt says, before a person approves, whether the call can be undone once it ran.
 */
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import type { ToolManifest } from '../../shared/manifest';
import { EffectsRecorder } from '../../main/executor/steps/recordEffects';
import { ImageStore } from '../../main/undo/imageStore';
import { BUILTIN_TOOLS } from '../../main/tools/builtinTools';
import { connectMcp, startTestGate, type TestGate } from '../integration/helpers';

let gate: TestGate;
let client: Client;
const prompts: ApprovalRequest[] = [];

beforeAll(async () => {
  gate = await startTestGate({ policyMode: 'strict' });
  gate.running.backend.subscribe('approvalRequested', (request) => {
    prompts.push(request);
    void gate.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
  });
  client = await connectMcp(gate.running.mcpUrl, gate.token);
});

afterAll(async () => {
  await client?.close();
  await gate?.close();
});

/** What the prompt of one call said of undoing it. */
async function undoLine(name: string, args: Record<string, unknown>): Promise<string | undefined> {
  const before = prompts.length;
  await client.callTool({ name, arguments: args });
  expect(prompts.length).toBe(before + 1);
  return prompts.at(-1)!.undoable;
}

describe('the prompt says whether a call will be undoable', () => {
  it('says undoable, undoable except the files over the 50 MB limit, or nothing for a call that changes nothing', async () => {
    expect(await undoLine('shell_exec', { command: 'echo hi > hello.txt' })).toBe('undoable');
    expect(await undoLine('write_file', { path: 'hello.txt', content: 'hello\n' })).toBe('undoable');
    // A sparse file of 51 MB: over the limit, without writing 51 MB.
    writeFileSync(join(gate.dirs.workspace, 'huge.bin'), '');
    truncateSync(join(gate.dirs.workspace, 'huge.bin'), 51_000_000);
    expect(await undoLine('delete_path', { path: 'huge.bin' })).toBe('undoable except: 1 file over the 50 MB limit (listed, not kept)');
    truncateSync(join(gate.dirs.workspace, 'hello.txt'), 52_000_000);
    await undoLine('shell_exec', { command: 'true' });
    expect(await undoLine('shell_exec', { command: 'rm hello.txt' })).toBe('undoable except: 1 file over the 50 MB limit (listed, not kept)');
    // Strict mode asks for a read too; its prompt says nothing of undoing, as there is nothing to undo.
    expect(await undoLine('read_file', { path: 'huge.bin' })).toBeUndefined();
  });
});

describe('undoability of tools whose changes are not recorded', () => {
  it('says a tool that reaches the network, or whose changes are not recorded, is not undoable', () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolgate-undoable-'));
    try {
      const recorder = new EffectsRecorder(folder, new ImageStore({ folder: join(folder, 'store'), maxBytes: 1024, redact: (text) => text }));
      const fetchTool = BUILTIN_TOOLS.find((tool) => tool.manifest.name === 'http_fetch')!.manifest;
      expect(recorder.undoability(fetchTool, {}, false)).toBe('not undoable: it reaches the network, and what was sent cannot be recalled');
      const custom: ToolManifest = { ...fetchTool, name: 'deploy', sideEffects: ['ProcessSpawn'] };
      expect(recorder.undoability(custom, {}, false)).toMatch(/^not undoable: what this tool changes is not recorded/);
      // An upstream tool: recorded when classed as writing files (on the workspace paths it names, else by a scan), not otherwise.
      const shell = BUILTIN_TOOLS.find((tool) => tool.manifest.name === 'shell_exec')!.manifest;
      expect(recorder.undoability({ ...shell, sideEffects: ['ProcessSpawn'] }, {}, true)).toMatch(/^not undoable: what this tool changes is not recorded/);
      expect(recorder.undoability(shell, { path: join(folder, 'a.txt') }, true)).toBe('undoable');
      expect(recorder.undoability({ ...shell, sideEffects: ['FsWrite', 'NetWrite'] }, { path: '/elsewhere/a.txt' }, true)).toBe(
        'undoable except: what it changes outside the workspace (/elsewhere/a.txt), and what it sends over the network, which cannot be recalled',
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
