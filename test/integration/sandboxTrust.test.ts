/**
 * A hostile agent with one approved shell_exec at a time, against a real gate in bubblewrap: the
 * official MCP client with the agent's token asks, the person approves at the console, and the
 * command tries to plant code that git, the editor, direnv, CI or a shell would run on the host,
 * to reach into the sandbox's init, or to leave something behind for the next call.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../main/hosts/sandbox';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { connectMcp, makeTempDirs, nextApproval, readToken, textOf, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

interface SandboxedGate {
  running: RunningGate;
  dirs: TempDirs;
  agent: Client;
  close(): Promise<void>;
}

async function startSandboxedGate(grants?: string[]): Promise<SandboxedGate> {
  const dirs = makeTempDirs();
  const running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, poolSize: 1, sandbox: 'require', ...(grants ? { grants } : {}) });
  const agent = await connectMcp(running.mcpUrl, readToken(dirs.home));
  return {
    running,
    dirs,
    agent,
    close: async () => {
      await agent.close();
      await running.close();
      dirs.remove();
    },
  };
}

/** Runs a command line through shell_exec as the agent, the person approving it. */
async function approvedShell(gate: SandboxedGate, command: string): Promise<CallToolResult> {
  const prompt = nextApproval(gate.running.backend);
  const call = gate.agent.callTool({ name: 'shell_exec', arguments: { command } }, undefined, { timeout: WAIT_MS }) as Promise<CallToolResult>;
  const request = await prompt;
  await gate.running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
  return call;
}

function codeOf(result: CallToolResult): unknown {
  return result._meta?.['toolgate/errorCode'];
}

/** What the command printed, when the call succeeded. */
function stdoutOf(result: CallToolResult): string {
  return (result.structuredContent as { stdout: string }).stdout;
}

/** The gate still answers: a plain command runs and says so. */
async function expectServing(gate: SandboxedGate): Promise<void> {
  const result = await approvedShell(gate, 'echo still-serving');
  expect(result.isError).toBe(false);
  expect(stdoutOf(result)).toContain('still-serving');
}

const PLANTED = [
  '.git/hooks/pre-commit',
  'vendor/lib/.git/config',
  'worktree/.git',
  '.vscode/tasks.json',
  '.claude/settings.json',
  '.mcp.json',
  '.envrc',
  '.github/workflows/ci.yml',
  '.github/actions/setup/action.yml',
  '.husky/pre-commit',
  '.gitmodules',
  '.npmrc',
  '.bashrc',
  '.profile',
  '.zshenv',
];

describe.skipIf(detectSandbox('auto').kind === 'none')('a sandboxed shell_exec leaves protected paths alone', () => {
  let gate: SandboxedGate;
  beforeAll(async () => {
    gate = await startSandboxedGate();
  });
  afterAll(() => gate?.close());

  it('git init with a hook and fsmonitor, a nested repo, a worktree pointer and every auto-run file are rolled back, and the agent is told', async () => {
    const plant = [
      'git init -q',
      'git config core.fsmonitor "touch /tmp/owned"',
      'git config core.hooksPath .husky',
      ...PLANTED.map((path) => `mkdir -p "$(dirname ${path})" && echo 'touch owned' > ${path}`),
      'echo "gitdir: ../vendor/lib/.git" > worktree/.git',
      'echo kept > notes.txt',
    ].join('; ');
    const result = await approvedShell(gate, plant);
    expect(codeOf(result)).toBe('EPERMISSION');
    const text = textOf(result);
    for (const path of ['.git', 'vendor/lib/.git', 'worktree/.git', '.vscode', '.claude', '.mcp.json', '.envrc', '.github/workflows', '.github/actions', '.husky', '.gitmodules', '.npmrc', '.bashrc', '.profile', '.zshenv']) {
      expect(text).toContain(`${path} (created`);
      expect(existsSync(join(gate.dirs.workspace, path)), path).toBe(false);
    }
    expect(text).toContain('--grant fs:write:.git/**');
    // Only the protected entries were undone: the rest of what the command did stays.
    expect(readFileSync(join(gate.dirs.workspace, 'notes.txt'), 'utf8')).toBe('kept\n');
    expect(existsSync(join(gate.dirs.workspace, 'vendor/lib'))).toBe(true);
    await expectServing(gate);
  });

  it("an existing repository's config and hooks are read-only, and it cannot be moved aside or swapped, while commits still work", async () => {
    const repo = join(gate.dirs.workspace, 'app');
    mkdirSync(repo);
    execFileSync('git', ['init', '-q', repo]);
    const config = readFileSync(join(repo, '.git/config'), 'utf8');
    const attempts = [
      'echo "[core] fsmonitor = evil" >> app/.git/config && echo config-changed',
      'echo evil > app/.git/hooks/pre-commit && echo hook-written',
      'mv app/.git app/.git-old && echo git-moved',
      'mv app app-old && echo folder-moved',
      'git -C app config core.hooksPath /tmp && echo hookspath-set',
      'git -C app -c user.name=agent -c user.email=agent@example.com commit -q --allow-empty -m approved && echo committed',
    ].join('; ');
    const result = await approvedShell(gate, attempts);
    expect(result.isError).toBe(false);
    const out = stdoutOf(result);
    for (const refused of ['config-changed', 'hook-written', 'git-moved', 'folder-moved', 'hookspath-set']) expect(out).not.toContain(refused);
    expect(out).toContain('committed');
    expect(execFileSync('git', ['-C', repo, 'log', '--format=%s'], { encoding: 'utf8' })).toBe('approved\n');
    expect(readFileSync(join(repo, '.git/config'), 'utf8')).toBe(config);
    expect(existsSync(join(repo, '.git/hooks/pre-commit'))).toBe(false);
    await expectServing(gate);
  });

  it('node_modules stays the package manager\'s: a package with its own .git can be removed and reinstalled', async () => {
    mkdirSync(join(gate.dirs.workspace, 'node_modules/pkg/.git'), { recursive: true });
    writeFileSync(join(gate.dirs.workspace, 'node_modules/pkg/.git/config'), '[core]\n');
    const result = await approvedShell(gate, 'rm -rf node_modules && mkdir -p node_modules/pkg/.git && echo reinstalled');
    expect(result.isError).toBe(false);
    expect(stdoutOf(result)).toContain('reinstalled');
    expect(existsSync(join(gate.dirs.workspace, 'node_modules/pkg/.git'))).toBe(true);
  });

  it('ptrace and the memory of the sandbox init are refused', async () => {
    const result = await approvedShell(
      gate,
      `python3 -c "import ctypes; libc=ctypes.CDLL(None, use_errno=True); print('ptrace', libc.ptrace(16, 1, 0, 0), ctypes.get_errno())"; ` +
        `head -c 16 /proc/1/mem > /dev/null 2>&1 && echo mem-read || echo mem-refused; ` +
        `echo x 2>/dev/null > /proc/1/mem && echo mem-written || echo mem-write-refused`,
    );
    const out = stdoutOf(result);
    // PTRACE_ATTACH returns -1 with errno 1 (EPERM).
    expect(out).toContain('ptrace -1 1');
    expect(out).toContain('mem-refused');
    expect(out).toContain('mem-write-refused');
    await expectServing(gate);
  });

  it('nothing of one call reaches the next: background processes, /tmp and /dev/shm', async () => {
    const first = await approvedShell(
      gate,
      'echo secret > /tmp/left-behind; echo shm > /dev/shm/left-behind; (sleep 30; echo late > late.txt) > /dev/null 2>&1 & echo started',
    );
    expect(stdoutOf(first)).toContain('started');
    const second = await approvedShell(
      gate,
      'ls /tmp/left-behind /dev/shm/left-behind 2>/dev/null | wc -l; ps -e -o comm= | grep -c "^sleep$"',
    );
    expect(stdoutOf(second).trim().split(/\s+/)).toEqual(['0', '0']);
  });

  it('writing past the size of the private /tmp fails inside with no space left, and the call with EQUOTA; the gate keeps serving', async () => {
    const result = await approvedShell(gate, 'head -c 300000000 /dev/zero > /tmp/fill; echo "exit=$?"');
    expect(codeOf(result)).toBe('EQUOTA');
    expect(textOf(result)).toContain('filled its private /tmp (256 MiB');
    await expectServing(gate);
  });
});

describe.skipIf(detectSandbox('auto').kind === 'none')('a grant lets a protected path through the sandbox', () => {
  let gate: SandboxedGate;
  beforeAll(async () => {
    gate = await startSandboxedGate(['fs:read', 'fs:write', 'fs:write:.vscode/**']);
  });
  afterAll(() => gate?.close());

  it('with --grant fs:write:.vscode/** the editor task stays; .envrc is still rolled back', async () => {
    const result = await approvedShell(gate, 'mkdir -p .vscode && echo "{}" > .vscode/tasks.json && echo "x" > .envrc');
    expect(codeOf(result)).toBe('EPERMISSION');
    expect(textOf(result)).toContain('.envrc (created');
    expect(textOf(result)).not.toContain('.vscode');
    expect(readFileSync(join(gate.dirs.workspace, '.vscode/tasks.json'), 'utf8')).toBe('{}\n');
    expect(existsSync(join(gate.dirs.workspace, '.envrc'))).toBe(false);
    await expectServing(gate);
  });
});

