/** The CLI as a person runs it: `node bin/toolgate.js ...` in child processes with a temp TOOLGATE_HOME. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { WAIT_MS } from '../fixtures/processes';
import type { TempDirs } from './helpers';

/** The repository root (where bin/toolgate.js lives). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The CLI entry, run with `node` like a user does. */
export const CLI = join(ROOT, 'bin/toolgate.js');

/** A `toolgate serve` child process. */
export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  mcpUrl: string;
  port: number;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then SIGKILL if it does not exit within 5 s. Idempotent. */
  stop(): Promise<void>;
}

/** The environment of a CLI child: this process's, with the temp state folder. */
export function cliEnv(home: string): NodeJS.ProcessEnv {
  return { ...process.env, TOOLGATE_HOME: home };
}

/** Spawns `node bin/toolgate.js serve --workspace WS --port 0 ...` (with this Node, or `node`) and waits for its MCP line. */
export async function spawnServe(dirs: TempDirs, extraArgs: string[] = [], node = process.execPath): Promise<ServeProcess> {
  const child = spawn(node, [CLI, 'serve', '--workspace', dirs.workspace, '--port', '0', ...extraArgs], {
    cwd: ROOT,
    env: cliEnv(dirs.home),
    stdio: 'pipe',
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    })();
    return stopping;
  };
  try {
    const mcpUrl = await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve printed no MCP line in ${WAIT_MS / 1000} s:\n${out}\n${err}`)), WAIT_MS);
      const onData = () => {
        const match = /^\s*MCP\s+(\S+)/m.exec(out);
        if (!match) return;
        clearTimeout(timer);
        child.stdout.off('data', onData);
        resolveUrl(match[1]!);
      };
      child.stdout.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`serve exited with ${code} before it was ready:\n${out}\n${err}`));
      });
    });
    return { child, mcpUrl, port: Number(new URL(mcpUrl).port), stdout: () => out, stderr: () => err, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The outcome of one CLI run. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node bin/toolgate.js ARGS` to completion (killed after WAIT_MS). */
export function runCli(args: string[], home: string): Promise<CliRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: cliEnv(home), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}

/** Launches `node bin/toolgate.js mcp` the way an MCP client config does and connects the official client to it. */
export async function connectStdioBridge(home: string, name = 'stdio-bridge-test'): Promise<Client> {
  const client = new Client({ name, version: '0.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp'],
    env: cliEnv(home) as Record<string, string>,
    cwd: ROOT,
    stderr: 'pipe',
  });
  await client.connect(transport);
  return client;
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
export function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolveAnswer) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolveAnswer(true);
    });
    socket.once('error', () => resolveAnswer(false));
  });
}
