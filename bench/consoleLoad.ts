// The console keeps up and the gate stays small (issue 13, targets 6 and 7): a served gate takes a
// steady stream of auto-allowed calls from several MCP agents while its console shows Live in
// headless Chromium. Measured in one run: the page's frame times and the gate's event-loop lag, each
// beside the same page and gate idle; the gate's memory idle, under the load, and after it.
import type { ChildProcess } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { chromium, type Browser, type Page } from 'playwright-core';
import { WebSocket } from 'ws';
import type { GateDiagnostics } from '../shared/contract';
import { percentile, startScript, type BenchSection, type BenchTarget } from './benchResult';

/** How the load is shaped; every number can be set from the environment. */
export interface ConsoleLoadOptions {
  /** Calls started per second, on a fixed schedule whatever the answers do. */
  callsPerSecond: number;
  /** How long the load lasts, in seconds. */
  loadSeconds: number;
  /** How long the page and the gate are watched idle first (the baselines), in seconds. */
  idleSeconds: number;
  /** How long the gate is left idle after the load before its memory is read again, in seconds. */
  settleSeconds: number;
  /** MCP sessions the calls are spread over. */
  agents: number;
  /** How long the same load runs again with the console closed, for what the console costs the gate (0 skips it). */
  bareSeconds: number;
}

/** The gate's RSS must stay under this idle (target 7). */
const IDLE_RSS_LIMIT_MB = 150;
/**
 * The bound on the gate's RSS under the load: its idle RSS (about 115 MB) plus what grows with load
 * and is capped — SQLite's page cache of the audit log (64 MiB, CallIndex's cache_size; it fills as
 * the log grows), the Live history (500 calls, each snapshot's shown output capped), the queue of
 * calls waiting for a tool process (256), a console's unsent events (16 MiB before it is let go) —
 * and V8's heap slack. A leak of ten KB a call (6,000 calls a minute) crosses it.
 */
const LOADED_RSS_LIMIT_MB = 250;
const FRAME_P95_LIMIT_MS = 20;
const LAG_P99_LIMIT_MS = 20;
/** Answers still outstanding past this many mean the gate fell behind; no more are started until it catches up. */
const MAX_OUTSTANDING = 500;

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => bytes / (1024 * 1024);

/** A field of /proc/PID/status in MB (VmRSS: resident now; VmHWM: the most it ever was). */
function procMemoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
  if (kb === undefined) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(kb) / 1024;
}

/**
 * CPU seconds (user + system) used so far by a process and every process under it, less the
 * subtrees of `apart` (the bench's tree less the gate's and its own: Chromium, every process of it).
 */
function treeCpuSeconds(rootPid: number, apart: readonly number[] = []): number {
  const processes = new Map<number, { parent: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The fields after the command's closing parenthesis: state ppid … utime (14th) stime (15th).
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      processes.set(Number(entry), { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // gone meanwhile
    }
  }
  const inTree = (pid: number): boolean => {
    for (let at: number | undefined = pid; at !== undefined && at > 1; at = processes.get(at)?.parent) {
      if (apart.includes(at)) return false;
      if (at === rootPid) return true;
    }
    return false;
  };
  let ticks = 0;
  for (const [pid, { ticks: used }] of processes) if (inTree(pid) && !(pid === rootPid && apart.includes(pid))) ticks += used;
  // Linux counts in USER_HZ, 100 a second.
  return ticks / 100;
}

interface ServedGate {
  child: ChildProcess;
  home: string;
  workspace: string;
  consoleUrl: string;
  mcpUrl: string;
}

/** `toolgate serve` on fresh folders, as a person starts it; resolves once both URLs are printed. */
async function serveGate(): Promise<ServedGate> {
  const home = mkdtempSync(join(tmpdir(), 'toolgate-bench-live-home-'));
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-bench-live-ws-'));
  writeFileSync(join(workspace, 'notes.md'), 'a file the agents read while the console watches\n'.repeat(20));
  const { child, match } = await startScript('bin/toolgate.js', ['serve', '--workspace', workspace, '--port', '0'], { TOOLGATE_HOME: home }, /console\s+(\S+)[\s\S]*MCP\s+(\S+)\n/);
  const urls = { consoleUrl: match[1]!, mcpUrl: match[2]! };
  return { child, home, workspace, ...urls };
}

/** Asks the gate for its diagnostics over the console bridge, as the console does. */
async function diagnostics(gate: ServedGate, reset: boolean): Promise<GateDiagnostics> {
  const port = new URL(gate.mcpUrl).port;
  const token = readFileSync(join(gate.home, 'console-token'), 'utf8').trim();
  const ws = new WebSocket(`ws://127.0.0.1:${port}/bridge`, ['toolgate.v1', `toolgate.token.${token}`], { origin: `http://127.0.0.1:${port}` });
  try {
    return await new Promise<GateDiagnostics>((resolve, reject) => {
      ws.once('open', () => ws.send(JSON.stringify({ id: 1, method: 'diagnostics', params: { reset } })));
      ws.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { type: string; id?: number; reply?: { ok: boolean; value?: GateDiagnostics; error?: unknown } };
        if (message.type !== 'reply' || message.id !== 1) return;
        if (message.reply?.ok) resolve(message.reply.value!);
        else reject(new Error(`diagnostics failed: ${JSON.stringify(message.reply?.error)}`));
      });
      ws.once('error', reject);
    });
  } finally {
    ws.close();
  }
}

/** Starts collecting the page's frame times (requestAnimationFrame deltas); `take` ends a window and returns it. */
async function startFrameWindow(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    const state = (window.__benchFrames ??= { deltas: [], last: undefined, running: false });
    state.deltas = [];
    state.last = undefined;
    if (state.running) return;
    state.running = true;
    const tick = (now) => {
      if (state.last !== undefined) state.deltas.push(now - state.last);
      state.last = now;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  })()`);
}

async function takeFrameWindow(page: Page): Promise<number[]> {
  return page.evaluate(`(() => { const deltas = window.__benchFrames.deltas; window.__benchFrames.deltas = []; return deltas; })()`);
}

/**
 * With BENCH_LIVE_PROFILE=DIR, the page's JavaScript is profiled during the load and written to
 * DIR/console-live.cpuprofile (open it in Chrome's DevTools, or summarise it).
 */
async function startPageProfile(page: Page): Promise<{ stop(): Promise<void> } | undefined> {
  const folder = process.env.BENCH_LIVE_PROFILE;
  if (!folder) return undefined;
  const session = await page.context().newCDPSession(page);
  await session.send('Profiler.enable');
  await session.send('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.send('Profiler.stop');
      writeFileSync(join(folder, 'console-live.cpuprofile'), JSON.stringify(profile));
    },
  };
}

interface LoadOutcome {
  started: number;
  answered: number;
  failed: number;
  seconds: number;
  rssSamplesMb: number[];
  firstError: string | undefined;
  /** Failures by their error code (EQUOTA: the gate's queue was full), or by what the client saw. */
  failuresBy: Map<string, number>;
}

/**
 * Starts calls on a fixed schedule (call i at i / rate seconds), spread over the agents, without
 * waiting for answers: a gate that slows down gets the calls all the same, as it would from agents.
 */
async function driveLoad(agents: Client[], options: ConsoleLoadOptions, pid: number): Promise<LoadOutcome> {
  // Each call in flight listens on its client's abort signal: hundreds at once are expected here.
  setMaxListeners(MAX_OUTSTANDING * 4);
  const total = Math.round(options.callsPerSecond * options.loadSeconds);
  const outcome: LoadOutcome = { started: 0, answered: 0, failed: 0, seconds: 0, rssSamplesMb: [], firstError: undefined, failuresBy: new Map() };
  const fail = (kind: string, detail: string) => {
    outcome.failed += 1;
    outcome.failuresBy.set(kind, (outcome.failuresBy.get(kind) ?? 0) + 1);
    outcome.firstError ??= detail.slice(0, 300);
  };
  const inFlight = new Set<Promise<void>>();
  const began = performance.now();
  let lastSample = began;
  const callOne = (index: number) => {
    const agent = agents[index % agents.length]!;
    // Three echoes to one read: the read goes through a tool process's filesystem, the echo does not.
    const request = index % 4 === 3 ? { name: 'read_file', arguments: { path: 'notes.md' } } : { name: 'echo', arguments: { text: `call ${index} from the bench` } };
    const call: Promise<void> = agent
      .callTool(request)
      .then((result) => {
        if (!result.isError) {
          outcome.answered += 1;
          return;
        }
        const text = JSON.stringify(result.content);
        fail(/\b(E[A-Z]+):/.exec(text)?.[1] ?? 'tool error', text);
      })
      .catch((error: unknown) => {
        const cause = (error as { cause?: unknown }).cause;
        fail('client error', `${String(error)}${cause ? ` (${String(cause)})` : ''}`);
      })
      .finally(() => inFlight.delete(call));
    inFlight.add(call);
  };
  while (outcome.started < total) {
    const now = performance.now();
    const due = Math.min(total, Math.floor(((now - began) / 1000) * options.callsPerSecond) + 1);
    while (outcome.started < due && inFlight.size < MAX_OUTSTANDING) callOne(outcome.started++);
    if (now - lastSample >= 1000) {
      outcome.rssSamplesMb.push(procMemoryMb(pid, 'VmRSS'));
      lastSample = now;
    }
    await sleep(4);
  }
  await Promise.all(inFlight);
  outcome.seconds = (performance.now() - began) / 1000;
  outcome.rssSamplesMb.push(procMemoryMb(pid, 'VmRSS'));
  return outcome;
}

async function connectAgents(gate: ServedGate, count: number): Promise<Client[]> {
  const token = readFileSync(join(gate.home, 'token'), 'utf8').trim();
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const client = new Client({ name: `bench-agent-${index}`, version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(gate.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      return client;
    }),
  );
}

/** The console section: frame times and event-loop lag under a stream of calls, and the gate's memory. */
export async function measureConsoleLoad(options: ConsoleLoadOptions): Promise<BenchSection> {
  const gate = await serveGate();
  const pid = gate.child.pid!;
  let browser: Browser | undefined;
  let agents: Client[] = [];
  try {
    // Idle: the gate started and settled, nobody connected.
    await sleep(3_000);
    const idleRssMb = procMemoryMb(pid, 'VmRSS');
    browser = await chromium.launch({ executablePath: process.env.BENCH_CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(gate.consoleUrl);
    await page.getByTestId('connection-state').getByText('connected').waitFor();
    agents = await connectAgents(gate, options.agents);
    await agents[0]!.callTool({ name: 'echo', arguments: { text: 'warm up' } });
    await page.locator('[data-testid="call-row"]').first().waitFor();
    await sleep(1_000);

    // Baselines: the same page and gate, idle, just before the load.
    await diagnostics(gate, true);
    await startFrameWindow(page);
    await sleep(options.idleSeconds * 1000);
    const idleFrames = await takeFrameWindow(page);
    const idle = await diagnostics(gate, true);
    const idleLag = idle.eventLoopLagMs;

    const profiler = await startPageProfile(page);
    // Chromium is this process's child, as the gate is: its share is this tree less the gate's and this process's own.
    const chromiumCpu = () => treeCpuSeconds(process.pid, [pid]) - process.cpuUsage().user / 1e6 - process.cpuUsage().system / 1e6;
    const cpuBefore = { browser: chromiumCpu(), gate: treeCpuSeconds(pid) };
    const load = await driveLoad(agents, options, pid);
    const loadFrames = await takeFrameWindow(page);
    const cpuUsed = { browser: chromiumCpu() - cpuBefore.browser, gate: treeCpuSeconds(pid) - cpuBefore.gate };
    await profiler?.stop();
    const loaded = await diagnostics(gate, false);
    const peakRssMb = procMemoryMb(pid, 'VmHWM');
    const rowsShown = await page.locator('[data-testid="call-row"]').count();
    const afterRssMb = procMemoryMb(pid, 'VmRSS');
    await sleep(options.settleSeconds * 1000);
    const settledRssMb = procMemoryMb(pid, 'VmRSS');
    const settled = await diagnostics(gate, false);

    // The same load with no console open: the gate's lag without a console to tell (its baseline).
    await browser.close();
    browser = undefined;
    await sleep(1_000);
    await diagnostics(gate, true);
    const bare = options.bareSeconds > 0 ? await driveLoad(agents, { ...options, loadSeconds: options.bareSeconds }, pid) : undefined;
    const bareLag = bare ? (await diagnostics(gate, false)).eventLoopLagMs : undefined;

    const achieved = load.answered / load.seconds;
    const rssDuring = load.rssSamplesMb;
    const targets: BenchTarget[] = [
      { name: `Live frame time under ${options.callsPerSecond} calls/s, p95`, measured: percentile(loadFrames, 95), unit: 'ms', holdsWhen: 'at-most', limit: FRAME_P95_LIMIT_MS },
      { name: `gate event-loop lag under ${options.callsPerSecond} calls/s with Live open, p99`, measured: loaded.eventLoopLagMs.p99, unit: 'ms', holdsWhen: 'at-most', limit: LAG_P99_LIMIT_MS },
      { name: 'gate RSS idle (started, settled, no console)', measured: idleRssMb, unit: 'MB', holdsWhen: 'at-most', limit: IDLE_RSS_LIMIT_MB },
      { name: `gate RSS peak (VmHWM) under ${options.callsPerSecond} calls/s`, measured: peakRssMb, unit: 'MB', holdsWhen: 'at-most', limit: LOADED_RSS_LIMIT_MB },
    ];
    const secondHalf = rssDuring.slice(Math.floor(rssDuring.length / 2));
    return {
      title: `The console under load: ${options.callsPerSecond} auto-allowed calls/s (3 echo : 1 read_file) from ${options.agents} MCP agents for ${options.loadSeconds} s, Live open in headless Chromium`,
      rows: [
        { label: 'Live frame time, page idle (baseline)', samples: idleFrames },
        { label: 'Live frame time, under load', samples: loadFrames },
      ],
      notes: [
        `calls: ${load.started} started, ${load.answered} answered, ${load.failed} failed in ${load.seconds.toFixed(1)} s = ${achieved.toFixed(1)} answered calls/s` +
          (load.failed > 0 ? ` (failures: ${[...load.failuresBy].map(([kind, n]) => `${n} ${kind}`).join(', ')}; the first: ${load.firstError})` : ''),
        `gate event-loop lag (inside the gate, monitorEventLoopDelay): idle ${idleLag.p50} / ${idleLag.p99} / ${idleLag.max} ms, under load ${loaded.eventLoopLagMs.p50} / ${loaded.eventLoopLagMs.p99} / ${loaded.eventLoopLagMs.max} ms (p50 / p99 / max)` +
          (bare && bareLag
            ? `; the same load with no console open (baseline): ${bareLag.p50} / ${bareLag.p99} / ${bareLag.max} ms, ${(bare.answered / bare.seconds).toFixed(1)} answered calls/s`
            : ''),
        `gate RSS: idle ${idleRssMb.toFixed(1)} MB; under load ${Math.min(...rssDuring).toFixed(1)}–${Math.max(...rssDuring).toFixed(1)} MB sampled each second (second half ${Math.min(...secondHalf).toFixed(1)}–${Math.max(...secondHalf).toFixed(1)} MB); peak (VmHWM) ${peakRssMb.toFixed(1)} MB; right after ${afterRssMb.toFixed(1)} MB; after ${options.settleSeconds} s idle ${settledRssMb.toFixed(1)} MB`,
        `gate JavaScript heap in use: idle ${mb(idle.heapUsedBytes).toFixed(1)} MB, after the load ${mb(loaded.heapUsedBytes).toFixed(1)} MB, after ${options.settleSeconds} s idle ${mb(settled.heapUsedBytes).toFixed(1)} MB (RSS above the heap is V8's and the allocator's reserve, kept for the next burst)`,
        `CPU during the load: Chromium (every process of it) ${cpuUsed.browser.toFixed(1)} s, the gate with its tool processes ${cpuUsed.gate.toFixed(1)} s, over ${load.seconds.toFixed(0)} s`,
        `Live drew ${rowsShown} call rows at the end (the list is windowed: only the rows in view are in the page)`,
        `the RSS bound ${LOADED_RSS_LIMIT_MB} MB: idle plus SQLite's page cache of the audit log (64 MiB at most), the Live history (500 calls), the calls waiting for a tool process (256), at most 16 MiB of a console's unsent events, and V8's slack; tool processes are apart`,
      ],
      targets,
    };
  } finally {
    await Promise.all(agents.map((agent) => agent.close().catch(() => {})));
    await browser?.close();
    const exited = new Promise((resolve) => gate.child.once('exit', resolve));
    gate.child.kill('SIGTERM');
    await exited;
    rmSync(gate.home, { recursive: true, force: true });
    rmSync(gate.workspace, { recursive: true, force: true });
  }
}
