/**
 * A gate left running in the background with nothing to do stays asleep: it times its event loop
 * only while it works. Before, its lag sampler woke it a hundred times a second, which a laptop
 * pays for in battery all day.
 * Measured on a real `toolgate serve` from outside: the main thread's wake-ups (voluntary context
 * switches).
 */
import { readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { waitUntil } from '../fixtures/processes';
import { spawnServe, type ServeProcess } from './cliProcesses';
import { makeTempDirs, readToken, type TempDirs } from './helpers';

let dirs: TempDirs | undefined;
let gate: ServeProcess | undefined;

afterEach(async () => {
  await gate?.stop();
  gate = undefined;
  dirs?.remove();
  dirs = undefined;
});

/** How many times the process's main thread has blocked and been woken since it started. */
function mainThreadWakeUps(pid: number): number {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
  return Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status)![1]);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The main thread's wake-ups over the next two seconds. */
async function wakeUpsInTwoSeconds(pid: number): Promise<number> {
  const before = mainThreadWakeUps(pid);
  await pause(2_000);
  return mainThreadWakeUps(pid) - before;
}

/**
 * Two seconds of an idle gate: its file looks and housekeeping timers wake it 7 to 18 times here;
 * the lag sampler alone woke it 200 times.
 */
const IDLE_WAKE_UPS = 40;

it('an idle gate wakes a few times a second at most, and an agent calling it is answered as before', async () => {
  dirs = makeTempDirs();
  gate = await spawnServe(dirs);
  const pid = gate.child.pid!;
  let last = Infinity;
  await waitUntil(async () => (last = await wakeUpsInTwoSeconds(pid)) <= IDLE_WAKE_UPS, `the idle gate to wake at most ${IDLE_WAKE_UPS} times in 2 s (last: ${last})`);

  // Asleep is not deaf: the next request is served at once.
  const response = await fetch(gate.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${readToken(dirs.home)}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'idle-check', version: '1' } } }),
  });
  expect(response.status).toBe(200);
  expect(await response.text()).toContain('"serverInfo"');
});
