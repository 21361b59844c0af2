import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from './cliProcesses';
import { makeTempDirs, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

let dirs: TempDirs;
afterEach(() => dirs?.remove());

describe('`npm start` in a terminal', () => {
  it('Ctrl+C (SIGINT to the whole process group, as a terminal sends it) stops the gate and removes gate.json', async () => {
    dirs = makeTempDirs();
    // Its own process group, like a terminal's foreground job: npm start's script, then the gate it starts.
    const child = spawn('npm', ['start', '--', '--headless', '--workspace', dirs.workspace, '--port', '0'], {
      cwd: ROOT,
      env: { ...process.env, TOOLGATE_HOME: dirs.home },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // 'close', not 'exit': npm can exit before its pipes are read to the end, and the gate, which holds
    // the same pipes, writes its last lines as it stops.
    const exited = new Promise<number | null>((resolveExit) => child.once('close', (code) => resolveExit(code)));
    await expect.poll(() => output, { timeout: WAIT_MS }).toMatch(/Press Ctrl\+C to stop/);
    expect(existsSync(join(dirs.home, 'gate.json'))).toBe(true);

    process.kill(-child.pid!, 'SIGINT');
    // npm ends the way its script did (by the signal); the gate must have closed cleanly before.
    await exited;
    expect(output).toContain('Stopping: pending prompts are denied');
    expect(existsSync(join(dirs.home, 'gate.json')), output).toBe(false);
  });
});
