/**
 * An upstream MCP server's tools classed as writing files (the reference filesystem server's
 * write_file, edit_file, move_file) are recorded like the built-in file tools, on the workspace
 * paths they name, and undone: through a real gate, the official MCP client and the server in its
 * sandbox.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import { CallEffectsSchema, type CallEffects } from '../../shared/effects';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { toolgateRoot } from '../../main/state/paths';
import { WAIT_MS, waitUntil } from '../fixtures/processes';
import { approveEveryPrompt, callIdOf, connectMcp, makeTempDirs, readToken, textOf, type TempDirs } from '../integration/helpers';
import { treeDigest, treeListing } from './undoTree';

const FILESYSTEM = resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

let dirs: TempDirs;
let running: RunningGate;
let client: Client;
const prompts: ApprovalRequest[] = [];

beforeAll(async () => {
  dirs = makeTempDirs();
  const readable = [toolgateRoot(), dirname(dirname(process.execPath))];
  writeFileSync(
    join(dirs.home, 'servers.json'),
    JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM, dirs.workspace], sandbox: { readable, writable: [dirs.workspace] } } } }),
  );
  running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: WAIT_MS, poolSize: 1 });
  approveEveryPrompt(running.backend, prompts);
  const [server] = (await running.backend.handlers.upstreamServers({})).servers;
  await running.backend.handlers.approveUpstreamLaunch({ server: server!.name, launchHash: server!.launchHash });
  await waitUntil(async () => {
    const [ready] = (await running.backend.handlers.upstreamServers({})).servers;
    return ready!.status === 'ready' && ready!.tools.length > 0;
  }, 'the filesystem server to start and list its tools');
  const [ready] = (await running.backend.handlers.upstreamServers({})).servers;
  // Trusted at the class each tool's annotations suggest: write_file, edit_file and move_file write files.
  await running.backend.handlers.reviewUpstream({ server: 'fs', tools: ready!.tools.map((tool) => ({ name: tool.name, definitionHash: tool.definitionHash, class: tool.class })) });
  client = await connectMcp(running.mcpUrl, readToken(dirs.home));
});

afterAll(async () => {
  await client?.close();
  await running?.close();
  dirs?.remove();
});

/** Calls a tool of the filesystem server (each is asked and approved); answers its call id and what its record says it changed. */
async function callFs(name: string, args: Record<string, unknown>): Promise<{ callId: string; effects: CallEffects; undoable: string | undefined }> {
  const asked = prompts.length;
  const result = await client.callTool({ name: `fs__${name}`, arguments: args });
  expect(result.isError, textOf(result)).toBeFalsy();
  const callId = callIdOf(result);
  const completed = running.gate.audit.forCall(callId).find((record) => record.kind === 'completed')!;
  const effects = CallEffectsSchema.parse((completed.payload as { effects?: unknown }).effects);
  return { callId, effects, undoable: prompts.length > asked ? prompts.at(-1)!.undoable : undefined };
}

describe('upstream tools classed as writing files', () => {
  it('are recorded on the paths they name, say undoable, and are undone exactly, one call or rewound together', async () => {
    const ws = dirs.workspace;
    mkdirSync(join(ws, 'docs'));
    writeFileSync(join(ws, 'docs/notes.md'), 'one\n');
    writeFileSync(join(ws, 'docs/draft.md'), 'draft\n');
    const listed = treeListing(ws).join('\n');
    const before = treeDigest(ws);

    const wrote = await callFs('write_file', { path: join(ws, 'docs/notes.md'), content: 'one\ntwo\n' });
    expect(wrote.undoable).toBe('undoable');
    expect(wrote.effects.method).toBe('exact-paths');
    expect(wrote.effects.effects.map((effect) => `${effect.path} ${effect.kind}`)).toEqual(['docs/notes.md modified']);

    const edited = await callFs('edit_file', { path: join(ws, 'docs/notes.md'), edits: [{ oldText: 'two', newText: 'three' }] });
    expect(edited.effects.effects.map((effect) => `${effect.path} ${effect.kind}`)).toEqual(['docs/notes.md modified']);
    const moved = await callFs('move_file', { source: join(ws, 'docs/draft.md'), destination: join(ws, 'final.md') });
    expect(moved.effects.effects.map((effect) => `${effect.from} → ${effect.path} ${effect.kind}`)).toEqual(['docs/draft.md → final.md renamed']);
    expect(readFileSync(join(ws, 'docs/notes.md'), 'utf8')).toBe('one\nthree\n');

    // One call: the move, put back.
    const undone = await running.backend.handlers.undoCall({ callId: moved.callId, rewind: false, dryRun: false, choices: {} });
    expect(undone.outcome, undone.reason).toBe('undone');
    expect(readFileSync(join(ws, 'docs/draft.md'), 'utf8')).toBe('draft\n');
    // Rewind to before the first write: the edit and the write, newest first.
    const rewound = await running.backend.handlers.undoCall({ callId: wrote.callId, rewind: true, dryRun: false, choices: {} });
    expect(rewound.outcome, rewound.reason).toBe('undone');
    expect(rewound.calls).toEqual([edited.callId, wrote.callId]);
    expect(treeListing(ws).join('\n')).toBe(listed);
    expect(treeDigest(ws)).toBe(before);
  });

  it('a tool classed as only reading records nothing', async () => {
    const read = await client.callTool({ name: 'fs__read_text_file', arguments: { path: join(dirs.workspace, 'docs/notes.md') } });
    expect(read.isError, textOf(read)).toBeFalsy();
    const completed = running.gate.audit.forCall(callIdOf(read)).find((record) => record.kind === 'completed')!;
    expect((completed.payload as { effects?: unknown }).effects).toBeUndefined();
  });
});
