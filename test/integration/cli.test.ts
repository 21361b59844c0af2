/**
 * The CLI end to end, as a person types it: `toolgate serve` in one process, `toolgate call`,
 * `tools` and `audit` in others, all sharing one temp TOOLGATE_HOME.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readGateAddress } from '../../main/state/stateFolder';
import type { AuditRecord } from '../../shared/audit';
import { stepsOfAll } from '../../shared/auditSteps';
import { BridgeClient, CLI, ROOT, cliEnv, makeTempDirs, readConsoleToken, readToken, runCli, spawnServe, type ServeProcess, type TempDirs } from './helpers';

interface AuditLine {
  seq: number;
  callId: string;
  kind: string;
  payload: Record<string, any>;
}

describe('with `toolgate serve` running', () => {
  let dirs: TempDirs;
  let serve: ServeProcess;

  beforeAll(async () => {
    dirs = makeTempDirs();
    serve = await spawnServe(dirs);
  });

  afterAll(async () => {
    await serve?.stop();
    dirs?.remove();
  });

  async function auditRecords(): Promise<AuditLine[]> {
    const listed = await runCli(['audit', 'list', '--json', '--limit', '1000'], dirs.home);
    expect(listed.code, listed.stderr).toBe(0);
    return stepsOfAll(JSON.parse(listed.stdout) as AuditRecord[]) as unknown as AuditLine[];
  }

  it("prints the banner the README shows: the same lines in the same order, the sandbox's version once", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const bannerOf = (text: string) => text.slice(text.indexOf('Toolgate '), text.indexOf('Press Ctrl+C to stop.')).split('\n').filter((line) => line.startsWith('  '));
    const labels = (lines: string[]) => lines.map((line) => line.trim().split(/\s+/)[0]);
    const real = bannerOf(serve.stdout());
    const sample = bannerOf(readme.slice(readme.indexOf('```\nToolgate ')));
    expect(labels(sample)).toEqual(labels(real));
    const sandbox = (lines: string[]) => lines.find((line) => line.trim().startsWith('sandbox'))!.trim().replace(/^sandbox\s+/, '');
    const bwrapVersion = /\d+\.\d+(\.\d+)?/.exec(execFileSync('bwrap', ['--version'], { encoding: 'utf8' }))![0];
    expect(sandbox(real)).toBe(`bubblewrap (${bwrapVersion})`);
    expect(sandbox(sample)).toMatch(/^bubblewrap \(\d+\.\d+\.\d+\)$/);
  });

  it('prints where it serves and keeps the token private', () => {
    expect(serve.stdout()).toContain(`workspace  ${realpathSync(dirs.workspace)}`);
    // The console URL carries the person's console token, never the agents' MCP token.
    expect(serve.stdout()).toMatch(new RegExp(`console\\s+http://127\\.0\\.0\\.1:${serve.port}/#token=${readConsoleToken(dirs.home)}\\s`));
    expect(serve.stdout()).not.toContain(readToken(dirs.home));
    expect(serve.mcpUrl).toBe(`http://127.0.0.1:${serve.port}/mcp`);
    for (const file of ['token', 'console-token']) expect(statSync(join(dirs.home, file)).mode & 0o777, file).toBe(0o600);
    expect(readToken(dirs.home)).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(readFileSync(join(dirs.home, 'gate.json'), 'utf8'))).toMatchObject({ port: serve.port, pid: serve.child.pid });
  });

  it('`call echo` prints the result and exits 0', async () => {
    const run = await runCli(['call', 'echo', '{"text":"hi from the cli"}'], dirs.home);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ text: 'hi from the cli' });
  });

  it('`call` with malformed JSON exits 1, says why, and is audited as rejected', async () => {
    const run = await runCli(['call', 'echo', '{"text":'], dirs.home);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/EVALIDATION.*the arguments are not valid JSON/);
    expect(run.stdout).toBe('');
    const records = await auditRecords();
    const invoked = records.find((record) => record.kind === 'invoked' && record.payload.arguments === '{"text":');
    expect(invoked, 'the raw text is audited as sent').toBeDefined();
    const rejected = records.find((record) => record.callId === invoked!.callId && record.kind === 'rejected');
    expect(rejected?.payload).toMatchObject({ step: 'parse', error: { code: 'EVALIDATION' } });
    expect(records.some((record) => record.callId === invoked!.callId && record.kind === 'started')).toBe(false);
  });

  it('`call` of an unknown tool exits 2 (the call could not be made) with ENOTFOUND, naming the tools', async () => {
    const run = await runCli(['call', 'nope', '{}'], dirs.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/ENOTFOUND: no tool named "nope"; the tools are: .*\bread_file\b/);
  });

  it('`call write_file` waits for the console, then writes', async () => {
    const bridge = await BridgeClient.open(serve.port, readConsoleToken(dirs.home));
    try {
      const child = spawn(process.execPath, [CLI, 'call', 'write_file', '{"path":"cli.txt","content":"via cli\\n"}'], {
        cwd: ROOT,
        env: cliEnv(dirs.home),
        stdio: 'pipe',
      });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
      const prompt = await bridge.waitForEvent('approvalRequested', (request) => request.arguments?.path === 'cli.txt');
      expect(prompt.preview).toMatchObject({ kind: 'diff', after: 'via cli\n' });
      expect(child.exitCode).toBeNull();
      expect(existsSync(join(dirs.workspace, 'cli.txt'))).toBe(false);
      const decided = await bridge.request('decideApproval', { approvalId: prompt.approvalId, decision: 'approve' });
      expect(decided.ok).toBe(true);
      expect(await exited).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ path: 'cli.txt', created: true });
      expect(readFileSync(join(dirs.workspace, 'cli.txt'), 'utf8')).toBe('via cli\n');
    } finally {
      bridge.close();
    }
  });

  it('`audit list` and `call` print an agent’s DEL, C1, separator and bidi characters as \\uXXXX escapes, never raw', async () => {
    const hostile = 'x\u007f\u0085\u009b31m\u2028\u202eexe\u2066';
    const agent = new Client({ name: `agent${hostile}`, version: '1.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(readGateAddress(dirs.home).mcpUrl), { requestInit: { headers: { authorization: `Bearer ${readToken(dirs.home)}` } } }),
    );
    try {
      expect((await agent.callTool({ name: 'echo', arguments: { text: hostile } })).isError).toBe(false);
    } finally {
      await agent.close();
    }
    const called = await runCli(['call', 'echo', JSON.stringify({ text: hostile })], dirs.home);
    expect(called.code, called.stderr).toBe(0);
    const listed = await runCli(['audit', 'list', '--limit', '20'], dirs.home);
    const json = await runCli(['audit', 'list', '--json', '--limit', '20'], dirs.home);
    for (const run of [called, listed, json]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout + run.stderr).not.toMatch(/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    }
    expect(listed.stdout).toContain('\\u202eexe');
    // Still JSON, with the agent's text as it was sent.
    const records = stepsOfAll(JSON.parse(json.stdout) as AuditRecord[]) as unknown as AuditLine[];
    expect(records.some((record) => record.payload.arguments?.text === hostile)).toBe(true);
  });

  it('`audit verify` finds the chain intact after those calls', async () => {
    const run = await runCli(['audit', 'verify'], dirs.home);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/audit log intact: \d+ records verified/);
  });
});

describe('`toolgate tools`', () => {
  let dirs: TempDirs;
  beforeAll(() => {
    dirs = makeTempDirs();
  });
  afterAll(() => dirs?.remove());

  const NAMES = ['calculator', 'delete_path', 'echo', 'edit_file', 'hash', 'http_fetch', 'list_dir', 'memory_delete', 'memory_list', 'memory_search', 'memory_store', 'read_file', 'search_files', 'shell_exec', 'write_file'];

  it('--format openai prints function tools', async () => {
    const run = await runCli(['tools', '--format', 'openai'], dirs.home);
    expect(run.code, run.stderr).toBe(0);
    const tools = JSON.parse(run.stdout) as Array<{ type: string; function: { name: string; description: string; parameters: any } }>;
    expect(tools.map((tool) => tool.function.name).sort()).toEqual(NAMES);
    for (const tool of tools) {
      expect(tool.type).toBe('function');
      expect(tool.function.description.length).toBeGreaterThan(10);
      expect(tool.function.parameters.type).toBe('object');
    }
    const write = tools.find((tool) => tool.function.name === 'write_file')!;
    expect(Object.keys(write.function.parameters.properties).sort()).toEqual(['content', 'path']);
  });

  it('--format anthropic prints input_schema tools', async () => {
    const run = await runCli(['tools', '--format', 'anthropic'], dirs.home);
    expect(run.code, run.stderr).toBe(0);
    const tools = JSON.parse(run.stdout) as Array<Record<string, any>>;
    expect(tools.map((tool) => tool.name).sort()).toEqual(NAMES);
    for (const tool of tools) {
      expect(Object.keys(tool).sort()).toEqual(['description', 'input_schema', 'name']);
      expect(tool.input_schema.type).toBe('object');
    }
  });

  it('--format mcp (the default) prints MCP tools', async () => {
    for (const args of [['tools', '--format', 'mcp'], ['tools']]) {
      const run = await runCli(args, dirs.home);
      expect(run.code, run.stderr).toBe(0);
      const tools = JSON.parse(run.stdout) as Array<Record<string, any>>;
      expect(tools.map((tool) => tool.name).sort()).toEqual(NAMES);
      for (const tool of tools) {
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.annotations).toHaveProperty('readOnlyHint');
      }
    }
  });

  it('refuses an unknown format with exit 2', async () => {
    const run = await runCli(['tools', '--format', 'yaml'], dirs.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--format takes mcp, openai, anthropic/);
    expect(run.stdout).toBe('');
  });
});

describe('without a running gate', () => {
  const started: ServeProcess[] = [];
  const folders: TempDirs[] = [];

  afterEach(async () => {
    for (const serve of started.splice(0)) await serve.stop();
    for (const dirs of folders.splice(0)) dirs.remove();
  });

  it('`call` exits 2 and says to start `toolgate serve`', async () => {
    const dirs = makeTempDirs();
    folders.push(dirs);
    const run = await runCli(['call', 'echo', '{"text":"anyone?"}'], dirs.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/toolgate serve/);
    expect(run.stdout).toBe('');
  });

  it('after serve stops on SIGTERM, `call` exits 2 instead of hanging', async () => {
    const dirs = makeTempDirs();
    folders.push(dirs);
    const serve = await spawnServe(dirs);
    started.push(serve);
    expect((await runCli(['call', 'echo', '{"text":"up"}'], dirs.home)).code).toBe(0);
    await serve.stop();
    expect(serve.child.exitCode).toBe(0);
    expect(serve.stdout()).toMatch(/Stopping/);
    expect(existsSync(join(dirs.home, 'gate.json'))).toBe(false);
    const run = await runCli(['call', 'echo', '{"text":"down"}'], dirs.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/toolgate serve/);
  });

  it('after serve is killed outright, `call` sees the stale address and exits 2', async () => {
    const dirs = makeTempDirs();
    folders.push(dirs);
    const serve = await spawnServe(dirs);
    started.push(serve);
    const exited = new Promise((resolve) => serve.child.once('exit', resolve));
    serve.child.kill('SIGKILL');
    await exited;
    expect(existsSync(join(dirs.home, 'gate.json'))).toBe(true);
    const run = await runCli(['call', 'echo', '{"text":"stale"}'], dirs.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no longer running.*toolgate serve/);
  });

  it('`serve` with a workspace that does not exist exits 2 and says so', async () => {
    const dirs = makeTempDirs();
    folders.push(dirs);
    const run = await runCli(['serve', '--workspace', join(dirs.workspace, 'missing'), '--port', '0'], dirs.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/does not exist/);
  });
});
