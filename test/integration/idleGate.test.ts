/**
 * A gate left running in the background with nothing to do stays asleep: it times its event loop
 * only while it works. Before, its lag sampler woke it a hundred times a second, which a laptop
 * pays for in battery all day.
 * Measured on a real `toolgate serve` from outside: the main thread's wake-ups (voluntary context
 * switches).
 */
import { readdirSync, readFileSync } from 'node:fs';
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

/** The command lines of the descendants of `pid` (a tool process's is its title, `toolgate-tool`). */
function descendantsOf(pid: number): string[] {
  const parents = new Map<number, number>();
  const titles = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces and parentheses: the fields after its closing one are split.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      titles.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8'));
    } catch {
      // Gone meanwhile.
    }
  }
  const under = (child: number): boolean => {
    for (let at = parents.get(child); at !== undefined && at > 1; at = parents.get(at)) if (at === pid) return true;
    return false;
  };
  return [...titles].filter(([child]) => under(child)).map(([, title]) => title);
}

it('a gate no agent has reached holds no tool process; the first agent request starts one before any call', async () => {
  dirs = makeTempDirs();
  gate = await spawnServe(dirs);
  const pid = gate.child.pid!;
  // Started, serving its console: no process of its own, not even a sandbox on its way.
  expect((await fetch(new URL('/', gate.mcpUrl))).status).toBe(200);
  expect(descendantsOf(pid)).toEqual([]);

  const response = await fetch(gate.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${readToken(dirs.home)}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'first-agent', version: '1' } } }),
  });
  expect(response.status).toBe(200);
  await waitUntil(() => descendantsOf(pid).filter((title) => title.startsWith('toolgate-tool')).length === 1, 'the first tool process to start once an agent reached the gate');
});
