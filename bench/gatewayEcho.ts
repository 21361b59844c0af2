// Toolgate as a gateway: agents call the echo tool of one stdio MCP server (bench/fixtures/stdioEcho.mjs)
// through Toolgate (its launch approved, the tool reviewed SAFE, the server in its sandbox, every
// call audited), beside the two proxies people use to put a stdio server on Streamable HTTP,
// `supergateway --stateful` and `mcp-proxy`, in front of the same server. The official SDK client
// for all, in alternated blocks: sequential latency, 16-agent throughput and each tree's RSS.
import { spawn, spawnSync } from 'node:child_process';
import { realpathSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { toolgateRoot } from '../main/state/paths';
import { percentile, ratioInterval, type BenchSection, type BenchTarget } from './benchResult';
import { connect, cpuPerCall, driveConcurrently, GATE_RSS_LIMIT_MB, loadWarm, peakPssMb, peakRssMb, perSecond, sequentialLatency, startServe, stopProcesses, total, type EchoServer, type McpEchoCounts, type Round, type StartedServer } from './mcpEcho';

/** The upstream server's name in servers.json; the gate lists its tool as `echo__echo`. */
const SERVER = 'echo';
/** How long a proxy or the reviewed tool may take to come up. */
const READY_MS = 60_000;

/** A free loopback port (bound once, then released for the proxy to take). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Connects once the server answers and lists `tool`, retrying until READY_MS has passed. */
async function whenReady(server: EchoServer, tool: string): Promise<Client> {
  const deadline = performance.now() + READY_MS;
  for (;;) {
    try {
      const client = await connect(server);
      if ((await client.listTools()).tools.some((listed) => listed.name === tool)) return client;
      await client.close();
    } catch (error) {
      if (performance.now() > deadline) throw new Error(`${server.url} did not list ${tool} within ${READY_MS / 1000} s: ${(error as Error).message}`);
    }
    if (performance.now() > deadline) throw new Error(`${server.url} did not list ${tool} within ${READY_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The stdio echo server every gateway here serves. */
const ECHO_SERVER = join(toolgateRoot(), 'bench/fixtures/stdioEcho.mjs');

/** A proxy's Node script from node_modules, started on a free port with the echo server as its stdio child. */
async function startProxy(bin: string, args: (port: number) => string[]): Promise<StartedServer> {
  const port = await freePort();
  const script = realpathSync(join(toolgateRoot(), 'node_modules/.bin', bin));
  const child = spawn(process.execPath, [script, ...args(port)], { cwd: toolgateRoot(), stdio: ['ignore', 'ignore', 'inherit'] });
  return { server: { url: `http://127.0.0.1:${port}/mcp`, headers: {}, child }, stop: () => stopProcesses([child]) };
}

const startSupergateway = () => startProxy('supergateway', (port) => ['--stdio', `${process.execPath} ${ECHO_SERVER}`, '--outputTransport', 'streamableHttp', '--stateful', '--port', String(port), '--logLevel', 'none']);
const startMcpProxy = () => startProxy('mcp-proxy', (port) => ['--port', String(port), '--host', '127.0.0.1', '--server', 'stream', '--', process.execPath, ECHO_SERVER]);

/** The floor: a bare passthrough (bench/fixtures/bareGateway.mjs) to the same echo server. */
async function startBarePassthrough(): Promise<StartedServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(toolgateRoot(), 'bench/fixtures/bareGateway.mjs'), String(port), process.execPath, ECHO_SERVER], { stdio: ['ignore', 'ignore', 'inherit'] });
  return { server: { url: `http://127.0.0.1:${port}/mcp`, headers: {}, child }, stop: () => stopProcesses([child]) };
}

/**
 * Toolgate serving the echo server from servers.json, its launch approved and its tool trusted as
 * SAFE with `servers review --yes`, in a state folder and workspace of its own.
 */
async function startGateway(): Promise<StartedServer> {
  // The sandbox shows the server a /tmp of its own: a Node or a checkout under /tmp is made readable where it is.
  const sandbox = { readable: [dirname(dirname(realpathSync(process.execPath))), toolgateRoot()] };
  const gate = await startServe((home) =>
    writeFileSync(join(home, 'servers.json'), JSON.stringify({ mcpServers: { [SERVER]: { command: process.execPath, args: [ECHO_SERVER], sandbox } } }, null, 2)),
  );
  const review = spawnSync(process.execPath, ['bin/toolgate.js', 'servers', 'review', SERVER, '--yes', '--tier', 'SAFE'], { cwd: toolgateRoot(), env: { ...process.env, TOOLGATE_HOME: gate.home }, encoding: 'utf8' });
  if (review.status !== 0) {
    await gate.stop();
    throw new Error(`servers review ${SERVER} --yes failed (${review.status}): ${review.stdout}${review.stderr}`);
  }
  return { server: { ...gate.server, tool: `${SERVER}__echo` }, stop: gate.stop };
}

/** The gateway route beside supergateway --stateful and mcp-proxy, in front of one stdio echo server. */
export async function measureGatewayEcho(counts: McpEchoCounts): Promise<BenchSection[]> {
  const names = ['Toolgate gateway (reviewed SAFE, sandboxed, audited)', 'supergateway --stateful (baseline)', 'mcp-proxy (baseline)'];
  // Sequential latency: one agent each, alternated in blocks, over fresh processes of each; the bare passthrough beside them is the floor.
  const sequentialNames = [...names, 'bare passthrough, no checks (the floor)'];
  const processes = await sequentialLatency([startGateway, startSupergateway, startMcpProxy, startBarePassthrough], counts, (server) => whenReady(server, server.tool ?? 'echo'));
  const samples = processes.map((groups) => groups.flat());
  const started: StartedServer[] = [];
  try {
    for (const start of [startGateway, startSupergateway, startMcpProxy]) started.push(await start());
    const servers = started.map(({ server }, index) => ({ name: names[index]!, server }));
    await Promise.all(servers.map(({ server }) => whenReady(server, server.tool ?? 'echo').then((client) => client.close())));

    // Throughput: `agents` sessions on each, driven in alternating rounds.
    const agents = await Promise.all(servers.map(({ server }) => Promise.all(Array.from({ length: counts.agents }, () => connect(server)))));
    const cold: number[] = [];
    for (const [index, { server }] of servers.entries()) cold.push(await loadWarm(server, agents[index]!, counts));
    const rounds = servers.map(() => [] as Round[]);
    const loaded = servers.map(() => [] as number[]);
    for (let round = 0; round < counts.rounds; round++) {
      for (const [index, { server }] of servers.entries()) rounds[index]!.push(await driveConcurrently(server, agents[index]!, counts.roundMs, loaded[index]!));
    }
    await Promise.all(agents.flat().map((client) => client.close()));
    const totals = rounds.map(total);

    const p50s = samples.map((list) => percentile(list, 50));
    const bestP50 = Math.min(p50s[1]!, p50s[2]!);
    const bestProxyByP50 = p50s[1]! <= p50s[2]! ? servers[1]!.name : servers[2]!.name;
    const rates = totals.map(perSecond);
    const bestRate = Math.max(rates[1]!, rates[2]!);
    const bestProxyByRate = rates[1]! >= rates[2]! ? servers[1]!.name : servers[2]!.name;
    const targets: BenchTarget[] = [
      { name: `gateway echo p50 ÷ the best proxy's (${bestProxyByP50.replace(/ \(baseline\)$/, '')})`, measured: p50s[0]!, baseline: bestP50, unit: 'ms', holdsWhen: 'at-most', limit: 1.0, interval: ratioInterval(processes[0]!, processes[p50s[1]! <= p50s[2]! ? 1 : 2]!, 50) },
      { name: `gateway echo, ${counts.agents} agents, calls/s ÷ the best proxy's (${bestProxyByRate.replace(/ \(baseline\)$/, '')})`, measured: rates[0]!, baseline: bestRate, unit: 'calls/s', holdsWhen: 'at-least', limit: 1.0 },
      { name: `gate memory (PSS) with its sandboxed upstream server, ${counts.agents} agents (peak sampled; baseline the lighter proxy tree)`, measured: peakPssMb(totals[0]!), baseline: Math.min(peakPssMb(totals[1]!), peakPssMb(totals[2]!)), unit: 'MB', holdsWhen: 'at-most', limit: GATE_RSS_LIMIT_MB, absolute: true },
    ];
    return [
      {
        title: `Gateway echo: one stdio MCP server behind Toolgate, supergateway --stateful and mcp-proxy (official SDK client), ${counts.calls} sequential calls each over ${counts.instances} processes of it started in turn, alternated in blocks of ${counts.block}`,
        rows: sequentialNames.map((name, index) => ({ label: name, samples: samples[index]! })),
        notes: [
          'the proxies keep no audit log and run the server unsandboxed; Toolgate reviews, sandboxes (bubblewrap, network off) and audits every call',
          `each process first answered ${counts.warmup} calls, not timed: long-running servers, measured warm`,
          `the floor, a bare passthrough (bench/fixtures/bareGateway.mjs: no session, check or audit), p50 ÷ the best proxy's: ${(p50s[3]! / bestP50).toFixed(2)}×, so the limit is not out of any gateway's reach here`,
        ],
      },
      {
        title: `Gateway echo, ${counts.agents} agents at once (one SDK client and session each), ${counts.rounds} rounds of ${counts.roundMs} ms each, alternated`,
        rows: servers.map(({ name }, index) => ({ label: `${name.replace(/ \(.*\)$/, '')}, ${counts.agents} agents`, samples: loaded[index]! })),
        notes: [
          `each first carried the agents for ${(counts.loadWarmupMs / 1000).toFixed(0)} s, not timed: long-running servers, measured warm; their first second, cold (calls/s): ${servers.map(({ name }, index) => `${name.replace(/ \(.*\)$/, '')} ${cold[index]!.toFixed(0)}`).join(', ')}`,
          `calls/s: ${servers.map(({ name }, index) => `${name.replace(/ \(.*\)$/, '')} ${rates[index]!.toFixed(0)}`).join(', ')}`,
          `CPU ms per call, server side (process and its children): ${servers.map(({ name }, index) => `${name.replace(/ \(.*\)$/, '')} ${cpuPerCall(totals[index]!.serverCpuMs, totals[index]!)}`).join(', ')}`,
          `memory of each process tree under the load, peak of samples each second, PSS (each page once) / RSS summed over its processes: ${servers.map(({ name }, index) => `${name.replace(/ \(.*\)$/, '')} ${peakPssMb(totals[index]!).toFixed(0)} / ${peakRssMb(totals[index]!).toFixed(0)} MB`).join(', ')}`,
        ],
        targets,
      },
    ];
  } finally {
    await Promise.all(started.map(({ stop }) => stop()));
  }
}
