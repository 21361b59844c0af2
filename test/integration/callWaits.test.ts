/**
 * `toolgate call` waits for as long as the gate holds the call: a person may take minutes to answer
 * a prompt, and the terminal's call must still get its result. The CLI and a real gate run in this
 * process with their timers faked, so minutes pass without waiting for them; the HTTP between
 * them is real.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { callCommand, type Io } from '../../main/cli/commands';
import { startGate } from '../../main/gate/startGate';
import { WAIT_MS, waitUntil } from '../fixtures/processes';
import { makeTempDirs, nextApproval, registerHeldTool } from './helpers';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Moves the faked clock on by `ms`, five seconds at a time (the gate's heartbeat period). */
async function pass(ms: number): Promise<void> {
  for (let passed = 0; passed < ms; passed += 5_000) await vi.advanceTimersByTimeAsync(5_000);
}

/** A served gate, and a terminal's streams for `toolgate call` against it. */
async function gateAndTerminal() {
  const dirs = makeTempDirs();
  cleanups.push(() => dirs.remove());
  const running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, poolSize: 1, approvalTimeoutMs: 600_000 });
  cleanups.push(() => running.close());
  const terminal = { stdout: '', stderr: '' };
  const io: Io = { out: (text) => void (terminal.stdout += text), err: (text) => void (terminal.stderr += text), home: dirs.home };
  return { dirs, running, terminal, io };
}

it('a call answered minutes later still ends with its result, the terminal told meanwhile that it waits', async () => {
  const { dirs, running, terminal, io } = await gateAndTerminal();

  // The first tool process has started, as an agent reaching the gate starts it (its start has a
  // deadline of its own, which the faked clock must not pass).
  running.gate.pool.warm();
  await waitUntil(() => running.gate.pool.stats().idle > 0, 'a warm tool process');
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  const prompt = nextApproval(running.backend);
  const calling = callCommand(['write_file', JSON.stringify({ path: 'late.txt', content: 'answered late' })], io);
  const request = await prompt;
  // Told as soon as the prompt is in the console, with no time passed: where the person answers.
  await vi.waitFor(() => expect(terminal.stderr).toContain(`write_file is waiting in the gate for a person's approval: answer it in the console at ${running.consoleUrl.replace(/#.*$/, '')}`), { timeout: WAIT_MS });

  // Over a minute passes with the prompt unanswered: longer than an MCP request waits for news.
  await pass(35_000);
  await vi.waitFor(() => expect(terminal.stderr).toMatch(/write_file is still waiting in the gate \(\d+ s\)/), { timeout: WAIT_MS });
  await pass(35_000);
  await vi.waitFor(() => expect(terminal.stderr.match(/is still waiting in the gate/g)).toHaveLength(2), { timeout: WAIT_MS });

  // The tool runs on the real clock: the process that replaces the one it takes starts against a real deadline.
  vi.useRealTimers();
  await waitUntil(() => running.gate.pool.stats().idle > 0, 'a warm tool process for the approved call');
  await running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
  expect(await calling, terminal.stderr).toBe(0);
  expect(readFileSync(join(dirs.workspace, 'late.txt'), 'utf8')).toBe('answered late');
  expect(terminal.stdout).toContain('late.txt');
}, 120_000);

it('a call no person is asked about is not said to wait for approval, even by a tool that says so; held long, it is said to be still running', async () => {
  const { running, terminal, io } = await gateAndTerminal();
  // A tool that runs until the test lets it finish, with no prompt (an upstream server's slow tool, as
  // the gateway registers it), whose progress speaks in the gate's words.
  const slow = registerHeldTool(running.gate.registry, 'slow__work', { changesFiles: false, progress: 'waiting for a person to approve it in the Toolgate console' });
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  const calling = callCommand(['slow__work', '{}'], io);
  await vi.waitFor(() => expect(slow.running()).toBe(true), { timeout: WAIT_MS });
  await pass(5_000);
  expect(terminal.stderr).toBe('');
  await pass(5_000);
  await vi.waitFor(() => expect(terminal.stderr).toContain('slow__work is still running in the gate (10 s). Ctrl+C cancels the call.'), { timeout: WAIT_MS });
  expect(terminal.stderr).not.toContain('approval');
  vi.useRealTimers();
  slow.finish();
  expect(await calling, terminal.stderr).toBe(0);
  expect(terminal.stdout).toContain('worked');
  // The tool's progress came before its result: by now the terminal has seen all it will.
  expect(terminal.stderr).toBe('toolgate call: slow__work is still running in the gate (10 s). Ctrl+C cancels the call.\n');
});
