// `npm run bench`: timings a person can compare, measured in one run on this machine.
//   1. an auto-allowed echo through the whole gate over MCP (Streamable HTTP, official SDK client)
//   2. the same echo served by a bare MCP SDK server, measured beside it as the baseline
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { row, summarize } from './stats.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const WARMUP = 50;
const BLOCK = 100;

function start(command, args, env, ready) {
  const child = spawn(process.execPath, [command, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = ready.exec(out);
      if (match) resolve({ child, match });
    });
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}) before it was ready:\n${out}`)));
  });
}

async function connect(url, headers = {}) {
  const client = new Client({ name: 'toolgate-bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

async function timeCalls(client, count, samples) {
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const result = await client.callTool({ name: 'echo', arguments: { text: `hello ${i}` } });
    if (result.isError) throw new Error(`echo failed: ${JSON.stringify(result.content)}`);
    samples?.push(performance.now() - started);
  }
}

const home = mkdtempSync(join(tmpdir(), 'toolgate-bench-home-'));
const workspace = mkdtempSync(join(tmpdir(), 'toolgate-bench-ws-'));
const gate = await start('bin/toolgate.js', ['serve', '--workspace', workspace, '--port', '0'], { TOOLGATE_HOME: home }, /MCP\s+(\S+)/);
const bare = await start('bench/bareEchoServer.mjs', [], {}, /listening (\d+)/);
try {
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  const gateClient = await connect(gate.match[1], { authorization: `Bearer ${token}` });
  const bareClient = await connect(`http://127.0.0.1:${bare.match[1]}/mcp`);
  await timeCalls(gateClient, WARMUP);
  await timeCalls(bareClient, WARMUP);
  const gateSamples = [];
  const bareSamples = [];
  // Alternate blocks so that both see the same machine load.
  for (let done = 0; done < CALLS; done += BLOCK) {
    await timeCalls(gateClient, Math.min(BLOCK, CALLS - done), gateSamples);
    await timeCalls(bareClient, Math.min(BLOCK, CALLS - done), bareSamples);
  }
  const gateStats = summarize(gateSamples);
  const bareStats = summarize(bareSamples);
  console.log(`\nToolgate bench — ${CALLS} sequential echo calls each, Node ${process.version}\n`);
  console.log(row('echo through the gate (MCP, auto-allowed)', gateStats));
  console.log(row('echo on a bare MCP SDK server (baseline)', bareStats));
  console.log(
    `${'gate overhead over the baseline'.padEnd(44)} p50 +${(gateStats.p50 - bareStats.p50).toFixed(3)} ms  p99 +${(gateStats.p99 - bareStats.p99).toFixed(3)} ms`,
  );
  await gateClient.close();
  await bareClient.close();
} finally {
  gate.child.kill('SIGTERM');
  bare.child.kill('SIGTERM');
  await new Promise((resolve) => gate.child.once('exit', resolve));
  rmSync(home, { recursive: true, force: true });
  rmSync(workspace, { recursive: true, force: true });
}
