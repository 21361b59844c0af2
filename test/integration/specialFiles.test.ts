/**
 * Hostile workspace entries against the file tools, through the official MCP client and a real gate
 * (tool processes in bubblewrap where it works): a FIFO, a unix socket and a device node are refused
 * at once by their kind, in previews too, and never hold a tool process; another agent's call is not
 * delayed. A recursive delete approved before a same-size change in its tree is refused whole.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, nextApproval, startTestGate, textOf, type TestGate } from './helpers';

let gate: TestGate;
let agent: Client;
let otherAgent: Client;
let socketServer: Server;
/** Whether this machine let us make a device node (root, and a file system that allows one). */
let deviceMade = false;

beforeAll(async () => {
  gate = await startTestGate();
  const workspace = gate.dirs.workspace;
  mkdirSync(join(workspace, 'special'));
  writeFileSync(join(workspace, 'special', 'notes.txt'), 'needle in a file\n');
  execFileSync('mkfifo', [join(workspace, 'special', 'pipe')]);
  socketServer = createServer();
  await new Promise<void>((resolve) => socketServer.listen(join(workspace, 'special', 'sock'), resolve));
  try {
    execFileSync('mknod', [join(workspace, 'special', 'null'), 'c', '1', '3'], { stdio: 'ignore' });
    deviceMade = true;
  } catch {
    deviceMade = false;
  }
  agent = await connectMcp(gate.running.mcpUrl, gate.token);
  otherAgent = await connectMcp(gate.running.mcpUrl, gate.token);
  // Warm the tool process, so the timings below measure the calls, not a process start.
  await agent.callTool({ name: 'read_file', arguments: { path: 'special/notes.txt' } });
});

afterAll(async () => {
  await agent?.close();
  await otherAgent?.close();
  socketServer?.close();
  await gate?.close();
});

function codeOf(result: CallToolResult): unknown {
  return result._meta?.['toolgate/errorCode'];
}

/**
 * A call's result. "At once" is shown by what the result is, not by a clock: a tool that opened a
 * FIFO would block there until its 30 s deadline and end in ETIMEOUT (or hold the prompt back),
 * where a refusal by kind answers EVALIDATION naming the kind.
 */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ result: CallToolResult }> {
  return { result: (await client.callTool({ name, arguments: args })) as CallToolResult };
}

const SPECIAL_FILES = [
  { name: 'pipe', says: 'a FIFO (named pipe)' },
  { name: 'sock', says: 'a socket' },
];

/** Expects read_file, edit_file and write_file each to refuse `path` as `says`, by its kind. */
async function expectRefusedByKind(path: string, says: string): Promise<void> {
  for (const [tool, args] of [
    ['read_file', { path }],
    ['edit_file', { path, strategy: 'snippet', old: 'a', new: 'b' }],
    ['write_file', { path, content: 'replaced\n' }],
  ] as const) {
    const { result } = await call(agent, tool, args);
    expect(codeOf(result), `${tool} ${path}`).toBe('EVALIDATION');
    expect(textOf(result), `${tool} ${path}`).toContain(`${path} is ${says}, not a regular file`);
  }
}

describe('file tools never block on special files', () => {
  it('edit_file on a FIFO is refused in its preview at once, and another agent meanwhile is not delayed', async () => {
    const editing = call(agent, 'edit_file', { path: 'special/pipe', strategy: 'snippet', old: 'a', new: 'b' });
    const reading = call(otherAgent, 'read_file', { path: 'special/notes.txt' });
    const [edit, read] = await Promise.all([editing, reading]);
    expect(codeOf(edit.result)).toBe('EVALIDATION');
    expect(textOf(edit.result)).toContain('special/pipe is a FIFO (named pipe), not a regular file');
    expect(read.result.isError).toBe(false);
    expect(read.result.structuredContent).toMatchObject({ content: 'needle in a file\n' });
  });

  it('read_file, edit_file and write_file refuse a FIFO and a socket by kind, each at once', async () => {
    for (const special of SPECIAL_FILES) await expectRefusedByKind(`special/${special.name}`, special.says);
    // write_file did not replace the FIFO by its rename: it is still a FIFO.
    expect(execFileSync('stat', ['-c', '%F', join(gate.dirs.workspace, 'special', 'pipe')], { encoding: 'utf8' })).toContain('fifo');
  });

  it('read_file, edit_file and write_file refuse a character device by kind, and list_dir names it', async (context) => {
    // A skip, not a silent pass: the run's summary counts it as a guard this machine could not test.
    context.skip(!deviceMade, 'this machine cannot make a device node (mknod needs root and a file system that allows one)');
    await expectRefusedByKind('special/null', 'a character device');
    const listing = await call(agent, 'list_dir', { path: 'special' });
    expect((listing.result.structuredContent as { entries: unknown[] }).entries).toContainEqual({ name: 'null', path: 'special/null', type: 'other', kind: 'character-device' });
  });

  it('a symlink to /dev/null is refused as leaving the workspace', async () => {
    execFileSync('ln', ['-sf', '/dev/null', join(gate.dirs.workspace, 'special', 'devlink')]);
    const { result } = await call(agent, 'read_file', { path: 'special/devlink' });
    expect(codeOf(result)).toBe('EPERMISSION');
  });

  it('search_files over a folder holding them returns, and list_dir names each by its kind', async () => {
    const search = await call(agent, 'search_files', { query: 'needle', path: 'special' });
    expect(search.result.isError).toBe(false);
    expect(search.result.structuredContent).toMatchObject({ matches: [{ path: 'special/notes.txt', line: 1 }] });
    const pointed = await call(agent, 'search_files', { query: 'needle', path: 'special/pipe' });
    expect(textOf(pointed.result)).toContain('special/pipe is a FIFO (named pipe), not a regular file');

    const listing = await call(agent, 'list_dir', { path: 'special' });
    const entries = (listing.result.structuredContent as { entries: Array<{ name: string; type: string; kind?: string }> }).entries;
    expect(entries).toContainEqual({ name: 'pipe', path: 'special/pipe', type: 'other', kind: 'fifo' });
    expect(entries).toContainEqual({ name: 'sock', path: 'special/sock', type: 'other', kind: 'socket' });
    const listedPipe = await call(agent, 'list_dir', { path: 'special/pipe' });
    expect(textOf(listedPipe.result)).toContain('special/pipe is not a directory but a FIFO (named pipe), which file tools list but never open');
  });

  it('the gate keeps serving afterwards', async () => {
    const { result } = await call(otherAgent, 'echo', { text: 'still here' });
    expect(textOf(result)).toBe('{"text":"still here"}');
  });
});

describe('a recursive delete binds the content it shows', () => {
  it('is refused, deleting nothing, when a file changed after the prompt without changing its size', async () => {
    const tree = join(gate.dirs.workspace, 'tree');
    mkdirSync(join(tree, 'sub'), { recursive: true });
    writeFileSync(join(tree, 'keep.txt'), 'alpha\n');
    writeFileSync(join(tree, 'sub', 'secret.txt'), 'harmless\n');

    const prompt = nextApproval(gate.running.backend);
    const deleting = agent.callTool({ name: 'delete_path', arguments: { path: 'tree', recursive: true } });
    const request = await prompt;
    expect(request.preview).toMatchObject({
      kind: 'delete',
      entries: expect.arrayContaining([expect.objectContaining({ path: 'tree/sub/secret.txt', bytes: 9, sha256: expect.any(String) })]),
      contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // The same size, other bytes: the listing's sizes alone would not tell.
    writeFileSync(join(tree, 'sub', 'secret.txt'), 'harmful!\n');
    await gate.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
    const result = (await deleting) as CallToolResult;
    expect(codeOf(result)).toBe('EDENIED');
    expect(textOf(result)).toContain('no longer what was approved');
    expect(readFileSync(join(tree, 'sub', 'secret.txt'), 'utf8')).toBe('harmful!\n');
    expect(existsSync(join(tree, 'keep.txt'))).toBe(true);

    // Unchanged after its prompt, the same delete goes through.
    const again = nextApproval(gate.running.backend);
    const retry = agent.callTool({ name: 'delete_path', arguments: { path: 'tree', recursive: true } });
    await gate.running.backend.handlers.decideApproval({ approvalId: (await again).approvalId, decision: 'approve' });
    expect(((await retry) as CallToolResult).isError).toBe(false);
    expect(existsSync(tree)).toBe(false);
  });

  it('deleting a FIFO shows its kind and never opens it', async () => {
    execFileSync('mkfifo', [join(gate.dirs.workspace, 'stray-pipe')]);
    const prompt = nextApproval(gate.running.backend);
    const deleting = agent.callTool({ name: 'delete_path', arguments: { path: 'stray-pipe' } });
    // Its preview came, so the FIFO was looked at by kind and not opened (an open would block there).
    const request = await prompt;
    expect(request.preview).toMatchObject({ kind: 'delete', entries: [{ path: 'stray-pipe', type: 'other', kind: 'fifo', bytes: 0 }] });
    await gate.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
    expect(((await deleting) as CallToolResult).isError).toBe(false);
    expect(existsSync(join(gate.dirs.workspace, 'stray-pipe'))).toBe(false);
  });
});
