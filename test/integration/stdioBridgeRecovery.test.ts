/**
 * The life of a real `toolgate serve` around the agents that use it: the stdio bridge finds the gate
 * again after it restarts (on the same port or another), tells the agent in words when none runs,
 * and the gate stops when the process that started it goes away.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, ROOT, cliEnv, connectStdioBridge, makeTempDirs, portAnswers, spawnServe, textOf, type ServeProcess, type TempDirs } from './helpers';
import { waitUntil } from '../fixtures/processes';

const NOT_RUNNING = /^Toolgate is not running: start it with `toolgate serve --workspace DIR` \(or `npm start` in the Toolgate folder\)$/;

const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDirs(): TempDirs {
  const dirs = makeTempDirs();
  cleanups.push(() => dirs.remove());
  return dirs;
}

async function serveFor(dirs: TempDirs, extraArgs: string[] = []): Promise<ServeProcess> {
  const serve = await spawnServe(dirs, extraArgs);
  cleanups.push(() => serve.stop());
  return serve;
}

async function bridgeFor(home: string): Promise<Client> {
  const client = await connectStdioBridge(home);
  cleanups.push(() => client.close());
  return client;
}

async function echo(client: Client, text: string) {
  return client.callTool({ name: 'echo', arguments: { text } });
}

describe('stdio bridge across gate restarts', () => {
  it('reconnects after the gate restarts on the same port and on another', async () => {
    const dirs = tempDirs();
    let serve = await serveFor(dirs);
    const client = await bridgeFor(dirs.home);
    expect((await echo(client, 'first gate')).structuredContent).toEqual({ text: 'first gate' });

    // Same port: the old session is unknown to the new gate (404).
    const port = serve.port;
    await serve.stop();
    serve = await serveFor(dirs, ['--port', String(port)]);
    expect(serve.port).toBe(port);
    expect((await echo(client, 'same port')).structuredContent).toEqual({ text: 'same port' });

    // Another port: the old address refuses connections; gate.json says where the gate is now.
    await serve.stop();
    serve = await serveFor(dirs);
    expect(serve.port).not.toBe(port);
    const [a, b] = await Promise.all([echo(client, 'together a'), echo(client, 'together b')]);
    expect([a.structuredContent, b.structuredContent]).toEqual([{ text: 'together a' }, { text: 'together b' }]);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('echo');
  });

  it('tells the agent to start Toolgate when none runs, and recovers once one does', async () => {
    const dirs = tempDirs();
    const serve = await serveFor(dirs);
    const client = await bridgeFor(dirs.home);
    expect((await echo(client, 'before')).isError).toBe(false);

    await serve.stop();
    const stopped = await echo(client, 'nobody home');
    expect(stopped.isError).toBe(true);
    expect(textOf(stopped)).toMatch(NOT_RUNNING);
    await expect(client.listTools()).rejects.toThrow(/Toolgate is not running: start it with `toolgate serve --workspace DIR`/);

    const again = await serveFor(dirs);
    expect((await echo(client, 'back again')).structuredContent).toEqual({ text: 'back again' });

    // A gate that died without cleaning up leaves gate.json naming a dead process.
    again.child.kill('SIGKILL');
    await again.stop();
    expect(existsSync(join(dirs.home, 'gate.json'))).toBe(true);
    const crashed = await echo(client, 'after a crash');
    expect(crashed.isError).toBe(true);
    expect(textOf(crashed)).toMatch(NOT_RUNNING);
  });
});

describe('`toolgate serve` stops with whoever started it', () => {
  it('exits when its parent process is killed', async () => {
    const dirs = tempDirs();
    const command = `"${process.execPath}" "${CLI}" serve --workspace "${dirs.workspace}" --port 0; exit $?`;
    const shell = spawn('sh', ['-c', command], { cwd: ROOT, env: cliEnv(dirs.home), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    shell.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    cleanups.push(() => void shell.kill('SIGKILL'));
    await waitUntil(() => /^\s*MCP\s+\S+/m.test(out), 'serve to print its MCP line');
    const { pid, port } = JSON.parse(readFileSync(join(dirs.home, 'gate.json'), 'utf8')) as { pid: number; port: number };
    cleanups.push(() => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    });
    expect(pid).not.toBe(shell.pid);
    expect(await portAnswers(port)).toBe(true);

    shell.kill('SIGKILL');
    await waitUntil(async () => !(await portAnswers(port)), 'the orphaned gate to stop');
    await waitUntil(() => !existsSync(join(dirs.home, 'gate.json')), 'gate.json to be removed on a clean stop');
  });

  it('stops cleanly on SIGHUP (the terminal closed)', async () => {
    const dirs = tempDirs();
    const serve = await serveFor(dirs);
    const exited = new Promise<number | null>((resolve) => serve.child.once('close', (code) => resolve(code)));
    serve.child.kill('SIGHUP');
    expect(await exited).toBe(0);
    expect(serve.stdout()).toMatch(/Stopping/);
    expect(await portAnswers(serve.port)).toBe(false);
  });
});
