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
import { makeTempDirs, nextApproval } from './helpers';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Moves the faked clock on by `ms`, five seconds at a time (the gate's heartbeat period). */
async function pass(ms: number): Promise<void> {
  for (let passed = 0; passed < ms; passed += 5_000) await vi.advanceTimersByTimeAsync(5_000);
}

it('a call answered minutes later still ends with its result, the terminal told meanwhile that it waits', async () => {
  const dirs = makeTempDirs();
  cleanups.push(() => dirs.remove());
  const running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, poolSize: 1, approvalTimeoutMs: 600_000 });
  cleanups.push(() => running.close());
  let stderr = '';
  let stdout = '';
  const io: Io = { out: (text) => void (stdout += text), err: (text) => void (stderr += text), home: dirs.home };

  // The first tool process has started, as an agent reaching the gate starts it (its start has a
  // deadline of its own, which the faked clock must not pass).
  running.gate.pool.warm();
  await waitUntil(() => running.gate.pool.stats().idle > 0, 'a warm tool process');
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  const prompt = nextApproval(running.backend);
  const calling = callCommand(['write_file', JSON.stringify({ path: 'late.txt', content: 'answered late' })], io);
  const request = await prompt;

  // Over a minute passes with the prompt unanswered: longer than an MCP request waits for news.
  await pass(35_000);
  await vi.waitFor(() => expect(stderr).toMatch(/write_file is still waiting in the gate \(\d+ s\)/), { timeout: WAIT_MS });
  await pass(35_000);
  await vi.waitFor(() => expect(stderr.match(/is still waiting in the gate/g)).toHaveLength(2), { timeout: WAIT_MS });

  // The tool runs on the real clock: the process that replaces the one it takes starts against a real deadline.
  vi.useRealTimers();
  await waitUntil(() => running.gate.pool.stats().idle > 0, 'a warm tool process for the approved call');
  await running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
  expect(await calling, stderr).toBe(0);
  expect(readFileSync(join(dirs.workspace, 'late.txt'), 'utf8')).toBe('answered late');
  expect(stdout).toContain('late.txt');
}, 120_000);
