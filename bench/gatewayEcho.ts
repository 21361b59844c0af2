// Toolgate as a gateway: agents call the echo tool of one stdio MCP server (bench/fixtures/stdioEcho.mjs)
// through Toolgate (its launch approved, the tool reviewed SAFE, the server in its sandbox, every
// call audited), beside the two proxies people use to put a stdio server on Streamable HTTP,
// `supergateway --stateful` and `mcp-proxy`, in front of the same server. The official SDK client
// for all, in alternated blocks: sequential latency, 16-agent throughput and each tree's RSS.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { toolgateRoot } from '../main/state/paths';
import { percentile, ratioInterval, startScript, timeSequential, type BenchSection, type BenchTarget } from './benchResult';
import { connect, cpuPerCall, driveConcurrently, echo, GATE_RSS_LIMIT_MB, peakPssMb, peakRssMb, perSecond, total, type EchoServer, type McpEchoCounts, type Round } from './mcpEcho';

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

/** A proxy's Node script from node_modules, started on `port` with the echo server as its stdio child. */
function startProxy(bin: string, args: string[]): ChildProcess {
  const script = realpathSync(join(toolgateRoot(), 'node_modules/.bin', bin));
  return spawn(process.execPath, [script, ...args], { cwd: toolgateRoot(), stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Toolgate serving the echo server from servers.json, its launch approved and its tool trusted as SAFE with `servers review --yes`. */
async function startGateway(home: string, workspace: string, echoServer: string): Promise<EchoServer> {
  // The sandbox shows the server a /tmp of its own: a Node or a checkout under /tmp is made readable where it is.
  const sandbox = { readable: [dirname(dirname(realpathSync(process.execPath))), toolgateRoot()] };
  writeFileSync(join(home, 'servers.json'), JSON.stringify({ mcpServers: { [SERVER]: { command: process.execPath, args: [echoServer], sandbox } } }, null, 2));
  const gate = await startScript('bin/toolgate.js', ['serve', '--workspace', workspace, '--port', '0'], { TOOLGATE_HOME: home }, /MCP\s+(\S+)\n/);
  const review = spawnSync(process.execPath, ['bin/toolgate.js', 'servers', 'review', SERVER, '--yes', '--tier', 'SAFE'], { cwd: toolgateRoot(), env: { ...process.env, TOOLGATE_HOME: home }, encoding: 'utf8' });
  if (review.status !== 0) throw new Error(`servers review ${SERVER} --yes failed (${review.status}): ${review.stdout}${review.stderr}`);
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  return { url: gate.match[1]!, headers: { authorization: `Bearer ${token}` }, child: gate.child, tool: `${SERVER}__echo` };
}

/** The gateway route beside supergateway --stateful and mcp-proxy, in front of one stdio echo server. */
export async function measureGatewayEcho(counts: McpEchoCounts): Promise<BenchSection[]> {
  const home = mkdtempSync(join(tmpdir(), 'toolgate-bench-home-'));
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-bench-ws-'));
  const echoServer = join(toolgateRoot(), 'bench/fixtures/stdioEcho.mjs');
  const started: ChildProcess[] = [];
  try {
    const gateway = await startGateway(home, workspace, echoServer);
    started.push(gateway.child);
    const [superPort, proxyPort, barePort] = [await freePort(), await freePort(), await freePort()];
    const supergatewayChild = startProxy('supergateway', ['--stdio', `${process.execPath} ${echoServer}`, '--outputTransport', 'streamableHttp', '--stateful', '--port', String(superPort), '--logLevel', 'none']);
    started.push(supergatewayChild);
    const mcpProxyChild = startProxy('mcp-proxy', ['--port', String(proxyPort), '--host', '127.0.0.1', '--server', 'stream', '--', process.execPath, echoServer]);
    started.push(mcpProxyChild);
    const bareChild = spawn(process.execPath, [join(toolgateRoot(), 'bench/fixtures/bareGateway.mjs'), String(barePort), process.execPath, echoServer], { stdio: ['ignore', 'ignore', 'inherit'] });
    started.push(bareChild);
    const servers: { name: string; server: EchoServer }[] = [
      { name: 'Toolgate gateway (reviewed SAFE, sandboxed, audited)', server: gateway },
      { name: 'supergateway --stateful (baseline)', server: { url: `http://127.0.0.1:${superPort}/mcp`, headers: {}, child: supergatewayChild } },
      { name: 'mcp-proxy (baseline)', server: { url: `http://127.0.0.1:${proxyPort}/mcp`, headers: {}, child: mcpProxyChild } },
    ];

    // Sequential latency: one agent each, alternated in blocks; the bare passthrough beside them is the floor.
    const sequential = [...servers, { name: 'bare passthrough, no checks (the floor)', server: { url: `http://127.0.0.1:${barePort}/mcp`, headers: {}, child: bareChild } }];
    const sequentialClients = await Promise.all(sequential.map(({ server }) => whenReady(server, server.tool ?? 'echo')));
    const samples = sequential.map(() => [] as number[]);
    for (const [index, client] of sequentialClients.entries()) await timeSequential(counts.warmup, (i) => echo(client, i, sequential[index]!.server.tool));
    for (let done = 0; done < counts.calls; done += counts.block) {
      for (const [index, client] of sequentialClients.entries()) {
        await timeSequential(Math.min(counts.block, counts.calls - done), (i) => echo(client, i, sequential[index]!.server.tool), samples[index]);
      }
    }
    await Promise.all(sequentialClients.map((client) => client.close()));

    // Throughput: `agents` sessions on each, driven in alternating rounds.
    const agents = await Promise.all(servers.map(({ server }) => Promise.all(Array.from({ length: counts.agents }, () => connect(server)))));
    for (const [index, { server }] of servers.entries()) await driveConcurrently(server, agents[index]!, Math.min(1000, counts.roundMs), []);
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
      { name: `gateway echo p50 ÷ the best proxy's (${bestProxyByP50.replace(/ \(baseline\)$/, '')})`, measured: p50s[0]!, baseline: bestP50, unit: 'ms', holdsWhen: 'at-most', limit: 1.0, interval: ratioInterval(samples[0]!, samples[p50s[1]! <= p50s[2]! ? 1 : 2]!, 50) },
      { name: `gateway echo, ${counts.agents} agents, calls/s ÷ the best proxy's (${bestProxyByRate.replace(/ \(baseline\)$/, '')})`, measured: rates[0]!, baseline: bestRate, unit: 'calls/s', holdsWhen: 'at-least', limit: 1.0 },
      { name: `gate memory (PSS) with its sandboxed upstream server, ${counts.agents} agents (peak sampled; baseline the lighter proxy tree)`, measured: peakPssMb(totals[0]!), baseline: Math.min(peakPssMb(totals[1]!), peakPssMb(totals[2]!)), unit: 'MB', holdsWhen: 'at-most', limit: GATE_RSS_LIMIT_MB, absolute: true },
    ];
    return [
      {
        title: `Gateway echo: one stdio MCP server behind Toolgate, supergateway --stateful and mcp-proxy (official SDK client), ${counts.calls} sequential calls each, alternated in blocks of ${counts.block}`,
        rows: sequential.map(({ name }, index) => ({ label: name, samples: samples[index]! })),
        notes: [
          'the proxies keep no audit log and run the server unsandboxed; Toolgate reviews, sandboxes (bubblewrap, network off) and audits every call',
          `each server first answered ${counts.warmup} calls, not timed: long-running servers, measured warm`,
          `the floor, a bare passthrough (bench/fixtures/bareGateway.mjs: no session, check or audit), p50 ÷ the best proxy's: ${(p50s[3]! / bestP50).toFixed(2)}×, so the limit is not out of any gateway's reach here`,
        ],
      },
      {
        title: `Gateway echo, ${counts.agents} agents at once (one SDK client and session each), ${counts.rounds} rounds of ${counts.roundMs} ms each, alternated`,
        rows: servers.map(({ name }, index) => ({ label: `${name.replace(/ \(.*\)$/, '')}, ${counts.agents} agents`, samples: loaded[index]! })),
        notes: [
          `calls/s: ${servers.map(({ name }, index) => `${name.replace(/ \(.*\)$/, '')} ${rates[index]!.toFixed(0)}`).join(', ')}`,
          `CPU ms per call, server side (process and its children): ${servers.map(({ name }, index) => `${name.replace(/ \(.*\)$/, '')} ${cpuPerCall(totals[index]!.serverCpuMs, totals[index]!)}`).join(', ')}`,
          `memory of each process tree under the load, peak of samples each second, PSS (each page once) / RSS summed over its processes: ${servers.map(({ name }, index) => `${name.replace(/ \(.*\)$/, '')} ${peakPssMb(totals[index]!).toFixed(0)} / ${peakRssMb(totals[index]!).toFixed(0)} MB`).join(', ')}`,
        ],
        targets,
      },
    ];
  } finally {
    for (const child of started) child.kill('SIGTERM');
    await Promise.all(started.map((child) => (child.exitCode === null && child.signalCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined)));
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}
