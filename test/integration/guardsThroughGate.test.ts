/**
 * Guards of the policy and the secrets that had no test from the outside, checked as a hostile
 * agent meets them: the official MCP client with the agents' token against a real gate. A path
 * argument may not hold a placeholder nor a character that shows another name, a secret may not
 * move a checked URL to another host, a more specific allow does not carve into a deny, a project
 * policy counts only once trusted (and again after every change), strict mode asks whatever an
 * allow says, and without a sandbox a file-reading tool asks.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import { DEFAULT_GRANTS } from '../../main/gate/createGate';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { writeSecretsFile } from '../../main/secrets/secretsFile';
import { statePaths } from '../../main/state/paths';
import { connectMcp, makeTempDirs, readToken, runCli, textOf, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

/** A stored secret that, put into a URL's authority, would send the request to another host. */
const MOVER = '.evil.example';
const API_KEY = 'k3y-value-123456';

interface Served {
  dirs: TempDirs;
  running: RunningGate;
  agent: Client;
  prompts: ApprovalRequest[];
}

async function serve(options: { sandbox?: 'off'; userPolicy?: unknown; policyMode?: 'strict' } = {}): Promise<Served> {
  const dirs = makeTempDirs();
  writeSecretsFile(statePaths(dirs.home).secrets, { MOVER, API_KEY });
  if (options.userPolicy) writeFileSync(join(dirs.home, 'policy.json'), JSON.stringify(options.userPolicy));
  const running = await startGate({
    home: dirs.home,
    workspace: dirs.workspace,
    port: 0,
    poolSize: 1,
    approvalTimeoutMs: WAIT_MS,
    // Every host granted: the host check passes whatever the URL says, so only the secrets step stands.
    grants: [...DEFAULT_GRANTS, 'net:read'],
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.policyMode ? { policyMode: options.policyMode } : {}),
  });
  const prompts: ApprovalRequest[] = [];
  running.backend.subscribe('approvalRequested', (request) => {
    prompts.push(request);
    void running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny', reason: 'guard test' });
  });
  return { dirs, running, agent: await connectMcp(running.mcpUrl, readToken(dirs.home)), prompts };
}

async function close(served: Served | undefined): Promise<void> {
  await served?.agent.close();
  await served?.running.close();
  served?.dirs.remove();
}

function call(served: Served, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return served.agent.callTool({ name, arguments: args }, undefined, { timeout: WAIT_MS }) as Promise<CallToolResult>;
}

let gate: Served;
beforeAll(async () => {
  gate = await serve({ userPolicy: { deny: ['shell_exec(git push *)'], allow: ['shell_exec(git push --dry-run *)', 'shell_exec(echo *)', 'write_file(notes/**)'] } });
});
afterAll(() => close(gate));

describe('secrets an agent tries to aim', () => {
  it('a placeholder in a path argument is refused with EVALIDATION naming it, before anyone is asked; nothing is written', async () => {
    const before = gate.prompts.length;
    const result = await call(gate, 'write_file', { path: '$ENV.API_KEY/x.txt', content: 'planted' });
    expect(result.isError).toBe(true);
    expect(result._meta?.['toolgate/errorCode']).toBe('EVALIDATION');
    expect(textOf(result)).toContain('$ENV.API_KEY');
    expect(textOf(result)).toContain('path');
    expect(gate.prompts.length).toBe(before);
    expect(readdirSync(gate.dirs.workspace)).toEqual([]);
    expect(existsSync(join(gate.dirs.workspace, API_KEY))).toBe(false);
  });

  it('a secret that would move a checked URL to another host is refused before anyone is asked, never showing the value', async () => {
    const before = gate.prompts.length;
    const result = await call(gate, 'http_fetch', { url: `https://api.example.com$ENV.MOVER/` });
    expect(result.isError, textOf(result)).toBe(true);
    expect(result._meta?.['toolgate/errorCode']).toBe('EVALIDATION');
    expect(textOf(result)).toContain('with $ENV.MOVER put in, the URL would no longer go to the host the gate checked');
    expect(JSON.stringify(result)).not.toContain('evil.example');
    expect(gate.prompts.length).toBe(before);
  });
});

describe('path arguments an agent writes to mislead the person', () => {
  it.each([
    ['read_file', { path: 'notes\u202Etxt.md' }, 'path'],
    ['list_dir', { path: 'a\nb' }, 'path'],
    ['search_files', { query: 'x', path: 'a\u2028b' }, 'path'],
    ['edit_file', { path: 'a\u2066b.md', strategy: 'snippet', old: 'a', new: 'b' }, 'path'],
    ['delete_path', { path: 'a\rb' }, 'path'],
    ['shell_exec', { command: 'echo hi', cwd: 'src\u0085' }, 'cwd'],
  ])('%s with a control, separator or bidi character in its path is refused with EVALIDATION naming the argument, nobody asked', async (tool, args, argument) => {
    const before = gate.prompts.length;
    const result = await call(gate, tool, args);
    expect(result.isError, textOf(result)).toBe(true);
    expect(result._meta?.['toolgate/errorCode'], textOf(result)).toBe('EVALIDATION');
    expect(textOf(result)).toContain(`${argument} holds the control character`);
    expect(gate.prompts.length).toBe(before);
  });
});

describe('rules of the user policy', () => {
  it('an allow of git push --dry-run does not carve into a deny of git push: refused with the deny, nobody asked', async () => {
    const before = gate.prompts.length;
    const result = await call(gate, 'shell_exec', { command: 'git push --dry-run origin main' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^EDENIED: denied by policy: denied by `shell_exec\(git push \*\)`, user policy/);
    expect(gate.prompts.length).toBe(before);
    const allowed = await call(gate, 'shell_exec', { command: 'echo fine' });
    expect(allowed.structuredContent).toMatchObject({ exitCode: 0, stdout: 'fine\n' });
  });
});

describe('a gate without a sandbox', () => {
  let bare: Served | undefined;
  afterAll(() => close(bare));

  it('asks before read_file, which the sandboxed gate runs unasked, one tier higher (ELEVATED)', async () => {
    const sandboxed = await call(gate, 'read_file', { path: 'absent.txt' });
    expect(textOf(sandboxed)).not.toMatch(/^EDENIED/);
    bare = await serve({ sandbox: 'off' });
    const result = await call(bare, 'read_file', { path: 'absent.txt' });
    expect(bare.prompts.map((prompt) => prompt.tool)).toEqual(['read_file']);
    expect(bare.prompts[0]!.rule).toBe('tier:ELEVATED→ask');
    expect(textOf(result)).toMatch(/^EDENIED: .*guard test/);
  });
});

/**
 * Writes a new file `${stem}-N.ts` until the gate answers as `done` says (a policy file is reloaded
 * within a second), for at most WAIT_MS; the last result and the file it named.
 */
async function writeUntil(served: Served, stem: string, done: (asked: boolean) => boolean): Promise<{ result: CallToolResult; file: string }> {
  const deadline = Date.now() + WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    const before = served.prompts.length;
    const path = `${stem}-${attempt}.ts`;
    const result = await call(served, 'write_file', { path, content: `attempt ${attempt}\n` });
    if (done(served.prompts.length > before) || Date.now() > deadline) return { result, file: join(served.dirs.workspace, path) };
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
}

describe('a project policy file', () => {
  let project: Served | undefined;
  afterAll(() => close(project));

  it('counts only once `toolgate policy trust` trusted it as it is, and no longer once it changes', async () => {
    project = await serve();
    const file = join(project.dirs.workspace, '.toolgate', 'policy.json');
    mkdirSync(join(project.dirs.workspace, '.toolgate'));
    mkdirSync(join(project.dirs.workspace, 'src'));
    writeFileSync(file, JSON.stringify({ allow: ['write_file(src/**)'] }));
    const untrusted = await call(project, 'write_file', { path: 'src/a.ts', content: 'one\n' });
    expect(project.prompts.map((prompt) => prompt.tool)).toEqual(['write_file']);
    expect(textOf(untrusted)).toMatch(/^EDENIED: .*guard test/);
    expect(existsSync(join(project.dirs.workspace, 'src', 'a.ts'))).toBe(false);

    const trusted = await runCli(['policy', 'trust'], project.dirs.home);
    expect(trusted.code, trusted.stderr).toBe(0);
    const unasked = await writeUntil(project, 'src/a', (asked) => !asked);
    expect(unasked.result.isError, textOf(unasked.result)).toBe(false);
    expect(existsSync(unasked.file)).toBe(true);

    writeFileSync(file, JSON.stringify({ allow: ['write_file(src/**)', 'shell_exec'] }));
    const changed = await writeUntil(project, 'src/b', (asked) => asked);
    expect(textOf(changed.result)).toMatch(/^EDENIED: .*guard test/);
    expect(existsSync(changed.file)).toBe(false);
  });
});

describe('strict mode', () => {
  let strict: Served | undefined;
  afterAll(() => close(strict));

  it('asks for a write a user allow covers, which the standard gate runs unasked', async () => {
    const policy = { allow: ['write_file(notes/**)'] };
    const standard = await call(gate, 'write_file', { path: 'notes/a.md', content: 'a\n' });
    expect(standard.isError, textOf(standard)).toBe(false);
    strict = await serve({ userPolicy: policy, policyMode: 'strict' });
    const result = await call(strict, 'write_file', { path: 'notes/a.md', content: 'a\n' });
    expect(strict.prompts.map((prompt) => prompt.rule)).toEqual(['mode:strict']);
    expect(textOf(result)).toMatch(/^EDENIED: .*guard test/);
    expect(existsSync(join(strict.dirs.workspace, 'notes', 'a.md'))).toBe(false);
  });
});
