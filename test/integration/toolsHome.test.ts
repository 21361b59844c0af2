/**
 * The tools home ($TOOLGATE_HOME/tools/*.json) through the official MCP client, a real gate and the
 * real `toolgate tools review`: a manifest tool never reviewed is hidden and refused, naming the
 * command; once reviewed it runs; a program or manifest changed since is refused again, naming
 * what changed, until reviewed anew.
 */
import { appendFileSync, chmodSync, copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { fileSha256 } from '../../main/tools/sources/sourcePins';
import { saveToolPin } from '../../main/tools/sources/toolReviews';
import { connectMcp, makeTempDirs, readToken, runCli, textOf, type TempDirs, approveEveryPrompt } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

let dirs: TempDirs;
let gate: RunningGate;
let agent: Client;
let program: string;
let manifestPath: string;
let stateFile: string;

function writeManifest(args: string[]): void {
  writeFileSync(
    manifestPath,
    JSON.stringify({
      name: 'say',
      description: 'Says its text back through a program',
      tier: 'SAFE',
      sideEffects: ['ProcessSpawn'],
      bounds: { timeoutMs: WAIT_MS },
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      outputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      source: { kind: 'subprocess', command: program, args, output: 'text' },
    }),
  );
}

beforeAll(async () => {
  dirs = makeTempDirs();
  // A program of its own, so the test can change it as an update (or an attacker) would.
  program = join(dirs.outside, 'say-program');
  copyFileSync('/usr/bin/printf', program);
  chmodSync(program, 0o755);
  mkdirSync(join(dirs.home, 'tools'));
  manifestPath = join(dirs.home, 'tools', 'say.json');
  writeManifest(['%s', '{{text}}']);
  // A reviewed tool whose "program" is a file of the state folder, reached through a symlink outside it.
  stateFile = join(dirs.home, 'kept-secret');
  copyFileSync('/usr/bin/printf', stateFile);
  chmodSync(stateFile, 0o755);
  symlinkSync(stateFile, join(dirs.outside, 'innocent-program'));
  const sneaky = join(dirs.home, 'tools', 'sneaky.json');
  writeFileSync(
    sneaky,
    JSON.stringify({ name: 'sneaky', description: 'Leads to the state folder', tier: 'SAFE', sideEffects: ['ProcessSpawn'], inputSchema: { type: 'object' }, source: { kind: 'subprocess', command: join(dirs.outside, 'innocent-program') } }),
  );
  const pinned = { manifestSha256: fileSha256(sneaky), codeFile: join(dirs.outside, 'innocent-program'), codeSha256: fileSha256(stateFile) };
  saveToolPin(dirs.home, { name: 'sneaky', manifestPath: sneaky, ...pinned, reviewedAt: new Date().toISOString() });
  gate = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, poolSize: 1, approvalTimeoutMs: WAIT_MS });
  agent = await connectMcp(gate.mcpUrl, readToken(dirs.home));
  // shell_exec asks a person: approved here, as the check is what the sandbox shows it.
  approveEveryPrompt(gate.backend);
});

afterAll(async () => {
  await agent?.close();
  await gate?.close();
  dirs?.remove();
});

async function say(text: string): Promise<CallToolResult> {
  return (await agent.callTool({ name: 'say', arguments: { text } })) as CallToolResult;
}

/** Calls until the answer passes `done` (the gate looks at the tools home once a second), for at most WAIT_MS. */
async function sayUntil(done: (result: CallToolResult) => boolean): Promise<CallToolResult> {
  for (const deadline = Date.now() + WAIT_MS; ; ) {
    const result = await say('hello');
    if (done(result) || Date.now() > deadline) return result;
    await new Promise((wait) => setTimeout(wait, 100));
  }
}

async function review(): Promise<void> {
  const reviewed = await runCli(['tools', 'review', 'say', '--yes'], dirs.home);
  expect(reviewed.stderr).toBe('');
  expect(reviewed.stdout).toContain('trusted say');
  expect(reviewed.code).toBe(0);
}

describe('tools home', () => {
  it('hides and refuses a manifest tool never reviewed, naming the review command; shows it in the Tools view', async () => {
    expect((await agent.listTools()).tools.map((tool) => tool.name)).not.toContain('say');
    const refused = await say('hello');
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain(`say (${manifestPath}) was never reviewed`);
    expect(textOf(refused)).toContain('toolgate tools review say');
    const shown = (await gate.backend.handlers.listTools({})).find((tool) => tool.name === 'say');
    expect(shown).toMatchObject({ available: false, source: { kind: 'subprocess', review: 'unreviewed', codeFile: program, manifestPath } });
    expect((await runCli(['tools'], dirs.home)).stdout).not.toContain('"name": "say"');
  });

  it('runs it once reviewed, and refuses it again when its program changes', async () => {
    await review();
    const ran = await sayUntil((result) => !result.isError);
    expect(ran.structuredContent).toEqual({ text: 'hello' });
    expect((await agent.listTools()).tools.map((tool) => tool.name)).toContain('say');
    // `toolgate tools` (the schemas for an agent's config) lists it too, once reviewed.
    expect((await runCli(['tools'], dirs.home)).stdout).toContain('"name": "say"');

    appendFileSync(program, Buffer.from('changed'));
    // Refused at once by the tool process (the pins it was handed), then by the gate once it looked.
    const refused = await sayUntil((result) => result.isError === true);
    expect(textOf(refused)).toContain(`program ${program} changed`);
    expect(textOf(refused)).toContain('toolgate tools review say');
    const held = await sayUntil((result) => textOf(result).includes('EUNAVAILABLE'));
    expect(textOf(held)).toContain(`say changed since it was reviewed: its program ${program} changed`);
    expect((await agent.listTools()).tools.map((tool) => tool.name)).not.toContain('say');
  });

  it('refuses it when its manifest changes after review, until reviewed again', async () => {
    await review();
    expect((await sayUntil((result) => !result.isError)).structuredContent).toEqual({ text: 'hello' });

    writeManifest(['%s%s', '{{text}}', ' and more']);
    const refused = await sayUntil((result) => result.isError === true);
    expect(textOf(refused)).toContain(`manifest ${manifestPath} changed`);
    const held = await sayUntil((result) => textOf(result).includes('EUNAVAILABLE'));
    expect(textOf(held)).toContain(`say changed since it was reviewed: its manifest ${manifestPath} changed`);

    await review();
    expect((await sayUntil((result) => !result.isError)).structuredContent).toEqual({ text: 'hello and more' });
  });

  it('shows tool processes the tools folder, but never a state-folder file a manifest names through a symlink', async () => {
    const result = (await agent.callTool({ name: 'shell_exec', arguments: { command: `ls ${join(dirs.home, 'tools')}; cat ${stateFile} > /dev/null && echo READABLE || echo HIDDEN` } })) as CallToolResult;
    const { stdout } = result.structuredContent as { stdout: string };
    expect(stdout).toContain('say.json');
    expect(stdout).toContain('HIDDEN');
    expect(stdout).not.toContain('READABLE');
  });
});
