import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpstreamOverview } from '../../shared/upstream';
import type { SideEffect } from '../../shared/manifest';
import { serversCommand } from '../../main/cli/serverCommands';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { openReviewStore } from '../../main/upstream/reviews';
import { toolgateRoot } from '../../main/state/paths';
import { callIdOf, connectMcp, makeTempDirs, nextApproval, readToken, textOf, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

const FILESYSTEM = resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FIXTURE = resolve('test/fixtures/upstreamServer.mjs');

let dirs: TempDirs;
let running: RunningGate;
let client: Client;

/** Waits until every server of the overview is ready. */
async function allReady(): Promise<UpstreamOverview> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const overview = await running.backend.handlers.upstreamServers({});
    if (overview.servers.every((server) => server.status === 'ready' && server.tools.length > 0)) return overview;
    if (Date.now() > deadline) throw new Error(`servers not ready: ${JSON.stringify(overview.servers.map((server) => [server.name, server.status, server.detail]))}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
}

beforeAll(async () => {
  dirs = makeTempDirs();
  // What the servers' sandboxes must be able to read when this checkout or Node lives under /tmp (hidden there).
  const readable = [toolgateRoot(), dirname(dirname(process.execPath))];
  writeFileSync(
    join(dirs.home, 'servers.json'),
    JSON.stringify({
      mcpServers: {
        fs: { command: process.execPath, args: [FILESYSTEM, dirs.workspace], sandbox: { readable, writable: [dirs.workspace] } },
        everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], sandbox: { readable } },
        shifty: { command: process.execPath, args: [FIXTURE, 'rug-pull'], sandbox: { readable } },
      },
    }),
  );
  const managedPolicyFile = join(dirs.outside, 'managed-policy.json');
  writeFileSync(
    managedPolicyFile,
    JSON.stringify({ deny: [{ rule: 'fs__write_file(path=**/private/**)', reason: 'private stays by hand' }], allow: ['everything__get-sum'] }),
  );
  running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: WAIT_MS, poolSize: 1, managedPolicyFile });
  client = await connectMcp(running.mcpUrl, readToken(dirs.home));
});

afterAll(async () => {
  await client?.close();
  await running?.close();
  dirs?.remove();
});

describe('upstream MCP servers behind the gate', () => {
  it('starts nothing until the person approves each exact launch, offers agents no tool before it is trusted, then lists each as server__tool', async () => {
    const waiting = await running.backend.handlers.upstreamServers({});
    expect(waiting.servers.map((server) => [server.name, server.status])).toEqual([
      ['fs', 'awaiting-launch'],
      ['everything', 'awaiting-launch'],
      ['shifty', 'awaiting-launch'],
    ]);
    expect(waiting.servers[0]!.launch).toContain(FILESYSTEM);
    expect((await client.listTools()).tools.some((tool) => tool.name.includes('__'))).toBe(false);

    for (const server of waiting.servers) await running.backend.handlers.approveUpstreamLaunch({ server: server.name, launchHash: server.launchHash });
    const ready = await allReady();
    // Started, but nothing reviewed yet: their definitions reach no agent, and a call is refused.
    expect((await client.listTools()).tools.some((tool) => tool.name.includes('__'))).toBe(false);
    expect(textOf(await client.callTool({ name: 'fs__read_text_file', arguments: { path: join(dirs.workspace, 'x') } }))).toMatch(/^EUNAVAILABLE: fs__read_text_file has not been reviewed yet/);

    // Trusted at the class each suggests (get-sum stays unreviewed for the hook's test below).
    for (const server of ready.servers.filter((entry) => entry.name !== 'shifty')) {
      const tools = server.tools.filter((tool) => tool.name !== 'get-sum').map((tool) => ({ name: tool.name, definitionHash: tool.definitionHash, class: tool.class }));
      await running.backend.handlers.reviewUpstream({ server: server.name, tools });
    }
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['fs__write_file', 'fs__read_text_file', 'everything__echo', 'read_file']));
    expect(names).not.toContain('everything__get-sum');
  });

  it('toolgate servers list shows where each server stands in the running gate', async () => {
    let printed = '';
    const code = await serversCommand(['list'], { home: dirs.home, out: (text) => (printed += text), err: (text) => (printed += text) });
    expect(code).toBe(0);
    expect(printed).toMatch(/^ {2}fs +stdio .*\[ready, \d+ tools, MCP 2025-\d\d-\d\d: runs in bubblewrap[^\]]*\]$/m);
    expect(printed).toMatch(/^ {2}everything +stdio .*\[ready, \d+ tools, MCP 2025-\d\d-\d\d: runs in bubblewrap[^\]]*\]$/m);
  });

  it('a write through the filesystem server asks with its diff, and once approved lands in the workspace', async () => {
    writeFileSync(join(dirs.workspace, 'notes.md'), 'one\n');
    const asked = nextApproval(running.backend);
    const call = client.callTool({ name: 'fs__write_file', arguments: { path: join(dirs.workspace, 'notes.md'), content: 'one\ntwo\n' } });
    const request = await asked;
    expect(request.tool).toBe('fs__write_file');
    expect(request.preview).toMatchObject({ kind: 'diff', path: 'notes.md', before: 'one\n', after: 'one\ntwo\n' });
    expect(readFileSync(join(dirs.workspace, 'notes.md'), 'utf8')).toBe('one\n');
    await running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(readFileSync(join(dirs.workspace, 'notes.md'), 'utf8')).toBe('one\ntwo\n');
    const kinds = running.gate.audit.forCall(callIdOf(result)).map((record) => record.kind);
    expect(kinds).toEqual(['invoked', 'capability', 'policy', 'approval-requested', 'approval-decided', 'started', 'completed']);
  });

  it('a call of a server the sandbox holds (no network, nothing writable) is one record whatever its class; of a server that may write, a write-ahead record and its end', async () => {
    const held = await client.callTool({ name: 'everything__echo', arguments: { message: 'held' } });
    expect(held.isError).toBe(false);
    expect(running.gate.audit.recordsOfCall(callIdOf(held)).map((record) => record.kind)).toEqual(['call']);
    // Classed as writing files and the network, it still can do neither there: nothing to write ahead of.
    const everything = (await running.backend.handlers.upstreamServers({})).servers.find((server) => server.name === 'everything')!;
    const echo = everything.tools.find((tool) => tool.name === 'echo')!;
    const review = (sideEffects: SideEffect[]) =>
      running.backend.handlers.reviewUpstream({ server: 'everything', tools: [{ name: 'echo', definitionHash: echo.definitionHash, class: { tier: 'SAFE', sideEffects } }] });
    await review(['FsWrite', 'NetWrite']);
    const classedWriting = await client.callTool({ name: 'everything__echo', arguments: { message: 'classed writing' } });
    expect(classedWriting.isError).toBe(false);
    expect(running.gate.audit.recordsOfCall(callIdOf(classedWriting)).map((record) => record.kind)).toEqual(['call']);
    await review([...echo.class.sideEffects]);
    writeFileSync(join(dirs.workspace, 'read-me.txt'), 'read');
    const writable = await client.callTool({ name: 'fs__read_text_file', arguments: { path: join(dirs.workspace, 'read-me.txt') } });
    expect(writable.isError).toBe(false);
    expect(running.gate.audit.recordsOfCall(callIdOf(writable)).map((record) => record.kind)).toEqual(['call-begun', 'call-ended']);
  });

  it('a call a rule denies never reaches the server', async () => {
    const target = join(dirs.workspace, 'private', 'plan.md');
    const result = await client.callTool({ name: 'fs__write_file', arguments: { path: target, content: 'leak' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^EDENIED: denied by policy: .*fs__write_file\(path=\*\*\/private\/\*\*\).*private stays by hand/s);
    expect(existsSync(target)).toBe(false);
    expect(running.gate.audit.forCall(callIdOf(result)).map((record) => record.kind)).not.toContain('started');
  });

  it('an agent cannot hand a server one of the gate\'s secrets through a placeholder', async () => {
    const result = await client.callTool({ name: 'everything__echo', arguments: { message: '$ENV.GITHUB_TOKEN' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^EVALIDATION: .*message.*\$ENV\.GITHUB_TOKEN/s);
  });

  it('arguments that break the server\'s own schema are refused by the gate before anyone is asked', async () => {
    const result = await client.callTool({ name: 'everything__echo', arguments: { message: 42 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^EVALIDATION: invalid arguments for everything__echo: .*message/);
  });

  it('a tool whose definition differs from the one trusted is hidden and refused until the person reviews it again', async () => {
    const overview = await running.backend.handlers.upstreamServers({});
    const echo = overview.servers.find((server) => server.name === 'everything')!.tools.find((tool) => tool.name === 'echo')!;
    // Trusted as it is: it runs without asking.
    await running.backend.handlers.reviewUpstream({ server: 'everything', tools: [{ name: 'echo', definitionHash: echo.definitionHash, class: { tier: 'SAFE', sideEffects: [] } }] });
    const trusted = await client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } });
    expect(textOf(trusted)).toBe('Echo: hi');

    // The pin now says the person trusted another description: what the server sends is a changed definition.
    openReviewStore(dirs.home).trust('everything', [{ definition: { ...echo.definition, description: 'the echo the person once read' }, class: { tier: 'SAFE', sideEffects: [] } }]);
    const deadline = Date.now() + WAIT_MS;
    while ((await client.listTools()).tools.some((tool) => tool.name === 'everything__echo')) {
      if (Date.now() > deadline) throw new Error('the changed tool is still listed');
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
    const refused = await client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } });
    expect(textOf(refused)).toMatch(/^EUNAVAILABLE: everything__echo changed since you reviewed it and is disabled/);
    // Claude Code's own connection to a server of that name is held to the same review through the hook.
    const hooked = await running.gate.hooks.answer(preToolUse('mcp__everything__echo', { message: 'hi' }));
    expect(hooked).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/changed since you reviewed it/) } });
    const changed = (await running.backend.handlers.upstreamServers({})).servers.find((server) => server.name === 'everything')!.tools.find((tool) => tool.name === 'echo')!;
    expect(changed).toMatchObject({ pin: 'changed', previous: { description: 'the echo the person once read' } });

    await running.backend.handlers.reviewUpstream({ server: 'everything', tools: [{ name: 'echo', definitionHash: changed.definitionHash, class: { tier: 'SAFE', sideEffects: [] } }] });
    expect(textOf(await client.callTool({ name: 'everything__echo', arguments: { message: 'again' } }))).toBe('Echo: again');
  });

  it('a server that changes a trusted definition mid-session (tools/list_changed) gets it disabled, with a finding, until reviewed', async () => {
    const shifty = (await running.backend.handlers.upstreamServers({})).servers.find((server) => server.name === 'shifty')!;
    await running.backend.handlers.reviewUpstream({
      server: 'shifty',
      tools: shifty.tools.map((tool) => ({ name: tool.name, definitionHash: tool.definitionHash, class: { tier: 'SAFE' as const, sideEffects: [] } })),
    });
    expect(textOf(await client.callTool({ name: 'shifty__weather', arguments: { city: 'Oslo' } }))).toBe('sunny in Oslo');

    expect(textOf(await client.callTool({ name: 'shifty__swap', arguments: {} }))).toBe('swapped');
    const deadline = Date.now() + WAIT_MS;
    let weather = shifty.tools.find((tool) => tool.name === 'weather')!;
    while (weather.pin !== 'changed') {
      if (Date.now() > deadline) throw new Error('the changed definition was not noticed');
      await new Promise((resolveWait) => setTimeout(resolveWait, 50));
      weather = (await running.backend.handlers.upstreamServers({})).servers.find((server) => server.name === 'shifty')!.tools.find((tool) => tool.name === 'weather')!;
    }
    expect(weather.findings.map((finding) => finding.kind)).toEqual(expect.arrayContaining(['addressed-to-model', 'asks-for-secrets']));
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('shifty__weather');
    const refused = await client.callTool({ name: 'shifty__weather', arguments: { city: 'Oslo' } });
    expect(textOf(refused)).toMatch(/^EUNAVAILABLE: shifty__weather changed since you reviewed it/);
  });

  it('through the hook too, an unreviewed upstream tool is refused although a rule allows it', async () => {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).not.toContain('everything__get-sum');
    const hooked = await running.gate.hooks.answer(preToolUse('mcp__everything__get-sum', { a: 1, b: 2 }), AbortSignal.timeout(300));
    expect(hooked).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/has not been reviewed yet/) } });
  });

  it('a tool the person classed as needing a capability the gate does not grant is refused over MCP and through the hook, naming the grant', async () => {
    const sum = (await running.backend.handlers.upstreamServers({})).servers.find((server) => server.name === 'everything')!.tools.find((tool) => tool.name === 'get-sum')!;
    await running.backend.handlers.reviewUpstream({
      server: 'everything',
      tools: [{ name: 'get-sum', definitionHash: sum.definitionHash, class: { tier: 'SAFE', sideEffects: ['NetRead'], capabilities: ['net:read:sums.example.com'] } }],
    });
    const refused = await client.callTool({ name: 'everything__get-sum', arguments: { a: 1, b: 2 } });
    const why = 'everything__get-sum needs net:read:sums.example.com, which this gate does not grant; start the gate with --grant net:read:sums.example.com to allow it';
    expect(textOf(refused)).toBe(`EPERMISSION: ${why}`);
    expect(running.gate.audit.forCall(callIdOf(refused)).map((record) => record.kind)).not.toContain('started');
    const hooked = await running.gate.hooks.answer(preToolUse('mcp__everything__get-sum', { a: 1, b: 2 }));
    expect(hooked).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining(why) } });
  });
});

/** A Claude Code PreToolUse input for one of its MCP tools. */
function preToolUse(tool: string, input: Record<string, unknown>) {
  return { hook_event_name: 'PreToolUse' as const, session_id: 'claude-session', cwd: dirs.workspace, tool_name: tool, tool_input: input, tool_use_id: `toolu_${Date.now()}` };
}
