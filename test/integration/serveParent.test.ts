/**
 * `toolgate serve` started by a process that then exits (a script, nohup in a shell that ends, an
 * interrupted npx) stops with it, and says why and how to keep it; with --keep-running it keeps
 * serving, a closed terminal's SIGHUP included. Real processes: a shell starts the gate in the
 * background and ends when the test closes its input.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { randomInt } from 'node:crypto';
import { processesWithMarker, waitUntil } from '../fixtures/processes';
import { CLI, cliEnv } from './cliProcesses';
import { connectMcp, makeTempDirs, readToken, type TempDirs } from './helpers';

let dirs: TempDirs | undefined;
let gatePid: number | undefined;

afterEach(() => {
  if (gatePid !== undefined && alive(gatePid)) process.kill(gatePid, 'SIGKILL');
  gatePid = undefined;
  dirs?.remove();
  dirs = undefined;
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A shell that starts the gate in the background, its output in files, and ends when its input closes. */
async function startFromShell(flags: string[]): Promise<{ shell: ChildProcess; pid: number; stderr: () => string; stdout: () => string }> {
  dirs = makeTempDirs();
  const { home, workspace } = dirs;
  const out = join(home, 'serve.out');
  const err = join(home, 'serve.err');
  const line = `"${process.execPath}" "${CLI}" serve --workspace "${workspace}" --port 0 ${flags.join(' ')} > "${out}" 2> "${err}" & echo $!; read finished`;
  const shell = spawn('sh', ['-c', line], { env: cliEnv(home), stdio: ['pipe', 'pipe', 'inherit'] });
  let printed = '';
  shell.stdout!.on('data', (chunk) => (printed += chunk));
  await waitUntil(() => /^\d+\n/.test(printed), 'the shell to print the gate pid');
  const pid = Number(printed.trim());
  gatePid = pid;
  const stdout = () => (existsSync(out) ? readFileSync(out, 'utf8') : '');
  await waitUntil(() => stdout().includes('Press Ctrl+C to stop.'), 'the gate to start');
  return { shell, pid, stdout, stderr: () => (existsSync(err) ? readFileSync(err, 'utf8') : '') };
}

it('a gate whose starting process exits stops too, and says why and how to keep it running', async () => {
  const { shell, pid, stderr, stdout } = await startFromShell([]);
  shell.stdin!.end();
  await waitUntil(() => !alive(pid), 'the gate to stop after the shell that started it ended');
  expect(stderr()).toMatch(/the process that started it \(pid \d+\) has exited, so the gate stops with it; .*start it with --keep-running/);
  expect(stdout()).toContain('Stopping: pending prompts are denied');
});

it('with --keep-running it outlives the process that started it and a hang-up, until it is told to stop', async () => {
  const { shell, pid, stdout, stderr } = await startFromShell(['--keep-running']);
  shell.stdin!.end();
  await new Promise((resolve) => shell.once('exit', resolve));
  // A closed terminal sends SIGHUP: ignored, as nohup would have it.
  process.kill(pid, 'SIGHUP');
  const address = JSON.parse(readFileSync(join(dirs!.home, 'gate.json'), 'utf8')) as { consoleUrl: string };
  const answered = await fetch(new URL('/', address.consoleUrl));
  expect(answered.status).toBe(200);

  // Ctrl+C still stops it. A pending SIGHUP is handled before a SIGINT, so by the time it stops as
  // Ctrl+C stops it, the hang-up was ignored, not taken as a reason to stop (or to die unannounced).
  process.kill(pid, 'SIGINT');
  await waitUntil(() => !alive(pid), 'the gate to stop on Ctrl+C');
  expect(stdout()).toContain('Stopping: pending prompts are denied');
  expect(stderr()).not.toContain('so the gate stops with it');
});

it('a reader of its output that goes away (serve | head) costs the gate nothing: it stops cleanly when told, its address file removed', async () => {
  dirs = makeTempDirs();
  const gate = spawn(process.execPath, [CLI, 'serve', '--workspace', dirs.workspace, '--port', '0'], { env: cliEnv(dirs.home), stdio: ['ignore', 'pipe', 'pipe'] });
  gatePid = gate.pid;
  let printed = '';
  let stderr = '';
  gate.stdout!.on('data', (chunk) => (printed += chunk));
  gate.stderr!.on('data', (chunk) => (stderr += chunk));
  await waitUntil(() => printed.includes('Press Ctrl+C to stop.'), 'the gate to start');
  // The reader quits: whatever the gate prints from now on meets a closed pipe.
  gate.stdout!.destroy();
  const exited = new Promise<number | null>((resolve) => gate.once('exit', resolve));
  gate.kill('SIGINT');
  expect(await exited, stderr).toBe(0);
  expect(stderr).not.toContain('EPIPE');
  expect(existsSync(join(dirs.home, 'gate.json'))).toBe(false);
});

/** A gate started by this process with its output read, stopped by the signals the test sends. */
async function spawnGate(until: (home: string, printed: string) => boolean, what: string, flags: string[] = [], prepare?: (workspace: string) => void) {
  dirs = makeTempDirs();
  prepare?.(dirs.workspace);
  const gate = spawn(process.execPath, [CLI, 'serve', '--workspace', dirs.workspace, '--port', '0', ...flags], { env: cliEnv(dirs.home), stdio: ['ignore', 'pipe', 'pipe'] });
  gatePid = gate.pid;
  const output = { stdout: '', stderr: '' };
  gate.stdout!.on('data', (chunk) => (output.stdout += chunk));
  gate.stderr!.on('data', (chunk) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => gate.once('exit', resolve));
  const home = dirs.home;
  await waitUntil(() => until(home, output.stdout), what);
  return { gate, output, exited, home };
}

it('Ctrl+C while the gate is still starting stops it once it has started, cleanly: no gate.json left to look like a running gate', async () => {
  // Its token is written early in its start, well before it serves and says so.
  const { gate, output, exited, home } = await spawnGate((home) => existsSync(join(home, 'token')), 'the gate to write its token');
  gate.kill('SIGINT');
  expect(await exited, output.stderr).toBe(0);
  expect(output.stdout).toContain('Press Ctrl+C to stop.');
  expect(output.stdout).toContain('Stopping: pending prompts are denied');
  expect(existsSync(join(home, 'gate.json'))).toBe(false);
});

it('a terminal that hangs up again while the gate stops does not kill it half-closed', async () => {
  // A running command that ignores SIGTERM holds the stop for the tool's grace period before it is
  // killed; a duration no other process on the machine sleeps for tells its sleep apart.
  const sleep = `sleep 600.${randomInt(1e6)}`;
  const { gate, output, exited, home } = await spawnGate(
    (_home, printed) => printed.includes('Press Ctrl+C to stop.'),
    'the gate to start',
    ['--grant', 'shell_exec(./hold.sh)'],
    (workspace) => writeFileSync(join(workspace, 'hold.sh'), `#!/bin/sh\ntrap '' TERM\n${sleep}\n`, { mode: 0o755 }),
  );
  const client = await connectMcp(/^\s*MCP\s+(\S+)/m.exec(output.stdout)![1]!, readToken(home));
  void client.callTool({ name: 'shell_exec', arguments: { command: './hold.sh' } }).catch(() => undefined);
  await waitUntil(() => processesWithMarker(sleep).length > 0, 'the command to be running');
  gate.kill('SIGHUP');
  await waitUntil(() => output.stdout.includes('Stopping:'), 'the gate to begin stopping');
  gate.kill('SIGHUP');
  expect(await exited, output.stderr).toBe(0);
  expect(output.stderr.match(/the terminal it ran in closed \(SIGHUP\), so the gate stops with it/g)).toHaveLength(1);
  expect(existsSync(join(home, 'gate.json'))).toBe(false);
  await client.close();
});
