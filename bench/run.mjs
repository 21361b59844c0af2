// `npm run bench`: timings a person can compare, measured in one run on this machine, and the targets
// they are held to, each against its baseline from the same run. Sections (BENCH_ONLY=a,b runs some):
//   1. [mcp] an auto-allowed echo through the whole gate over MCP (Streamable HTTP, official SDK client)
//      beside the same echo served by a bare MCP SDK server, as the baseline
//   2. [tools] a tool process's cold start, plain and in bubblewrap (bench/toolProcesses.ts), and
//      needed → ready per sandbox profile with spare processes and without
//   3. warm 1 KiB and 1 MiB round trips through the tool-process pool, plain and in bubblewrap, and the
//      1 MiB's pieces alone (framing, canonical form, hash, the executor's output step)
//   4. deadline → dead for a tool that obeys SIGTERM and one that ignores it
//   4b. [approval] Approve → result for a small write_file through a real gate, beside the same write
//      auto-allowed (bench/approvalLatency.ts)
//   5. [gate] an auto-allowed call through the gate's executor beside a bare child_process IPC round trip
//      (bench/gateOverhead.ts)
//   6. [policy] policy evaluation for 1,000 rules beside the tier policy alone (bench/policyEvaluation.ts)
//   7. [explorer] the audit explorer over a generated log of BENCH_AUDIT_CALLS calls (default 1,000,000):
//      pages, facets, search, charts, and the index build (bench/auditExplorer.ts)
//   8. [proof] audit verify over BENCH_AUDIT_RECORDS records (default 1,000,000) beside the old walk, verify
//      --checkpoint, and the checkpoint writer's cost per appended record (bench/auditProof.ts)
// Counts: BENCH_CALLS (1 and 5, default 1000), BENCH_COLD (20), BENCH_SMALL (200), BENCH_LARGE (30),
// BENCH_DEADLINES (10), BENCH_SPARES (10 calls per profile),
// BENCH_APPROVALS (30), BENCH_FIRST_APPROVALS (8 gates started for their first write).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadInternal } from './loadInternal.mjs';
import { differenceRow, heading, row, summarize, targetRow } from './stats.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const WARMUP = 50;
const BLOCK = 100;
const count = (name, fallback) => Number(process.env[name] ?? fallback);

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

/** Prints one section of the table that a TypeScript bench module measured. */
function printSection(section) {
  console.log(heading(section.title));
  const stats = new Map(section.rows.map(({ label, samples }) => [label, summarize(samples)]));
  for (const [label, summary] of stats) console.log(row(label, summary));
  for (const [measured, baseline] of section.differences ?? []) {
    console.log(differenceRow(`${measured.replace(/ \(.*\)$/, '')} − bare`, stats.get(measured), stats.get(baseline)));
  }
  for (const note of section.notes) console.log(`  · ${note}`);
  for (const target of section.targets ?? []) {
    const { judged, holds } = judgeTarget(target);
    targets.push({ target, judged, holds });
    console.log(targetRow(target, judged, holds));
  }
}

/** Every target printed so far, for the summary at the end. */
const targets = [];
/** judgeTarget from bench/benchResult.ts, loaded with the first TypeScript section. */
let judgeTarget;

/** Section 1: the whole gate over MCP beside a bare MCP SDK server. */
async function measureMcp() {
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
    console.log(heading(`Echo over MCP (Streamable HTTP, official SDK client), ${CALLS} sequential calls each, alternated in blocks of ${BLOCK}`));
    console.log(row('echo through the gate (MCP, auto-allowed)', gateStats));
    console.log(row('echo on a bare MCP SDK server (baseline)', bareStats));
    console.log(differenceRow('gate overhead over the baseline', gateStats, bareStats));
    await gateClient.close();
    await bareClient.close();
  } finally {
    gate.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
    await new Promise((resolve) => gate.child.once('exit', resolve));
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}

const began = performance.now();
[{ judgeTarget }] = await loadInternal(root, ['bench/benchResult.ts']);
const AUDIT_PROOF = [count('BENCH_AUDIT_RECORDS', 1_000_000), count('BENCH_AUDIT_ROUNDS', 3), count('BENCH_AUDIT_APPENDS', 5000)];
const AUDIT_CALLS = count('BENCH_AUDIT_CALLS', 1_000_000);

/** A TypeScript bench module's section(s): bundled, loaded and run. */
async function typescript(module, name, ...args) {
  const [loaded] = await loadInternal(root, [module]);
  const result = await loaded[name](...args);
  for (const section of Array.isArray(result) ? result : [result]) printSection(section);
}

/**
 * The sections, in the order a full run takes them. BENCH_ONLY=name[,name…] runs only those
 * (e.g. BENCH_ONLY=policy, BENCH_ONLY=explorer, BENCH_ONLY=proof).
 */
const SECTIONS = {
  mcp: () => measureMcp(),
  tools: () =>
    typescript('bench/toolProcesses.ts', 'measureToolProcesses', {
      coldStarts: count('BENCH_COLD', 20),
      smallCalls: count('BENCH_SMALL', 200),
      largeCalls: count('BENCH_LARGE', 30),
      deadlines: count('BENCH_DEADLINES', 10),
      spareCalls: count('BENCH_SPARES', 10),
    }),
  approval: () => typescript('bench/approvalLatency.ts', 'measureApprovalLatency', count('BENCH_APPROVALS', 30), count('BENCH_FIRST_APPROVALS', 8)),
  gate: () => typescript('bench/gateOverhead.ts', 'measureGateOverhead', CALLS, BLOCK, WARMUP),
  // Ten decisions per gate call: each is microseconds, so more samples steady the percentiles.
  policy: () => typescript('bench/policyEvaluation.ts', 'measurePolicyEvaluation', CALLS * 10, BLOCK * 10, WARMUP * 10),
  explorer: () => typescript('bench/auditExplorer.ts', 'measureAuditExplorer', AUDIT_CALLS),
  proof: () => typescript('bench/auditProof.ts', 'measureAuditProof', ...AUDIT_PROOF),
};

const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim()).filter(Boolean);
const unknown = only?.filter((name) => !(name in SECTIONS)) ?? [];
if (unknown.length > 0) {
  console.error(`BENCH_ONLY names no section called ${unknown.join(', ')}; the sections are ${Object.keys(SECTIONS).join(', ')}`);
  process.exit(2);
}
console.log(`Toolgate bench — Node ${process.version}, ${process.platform} ${process.arch}, ${availableParallelism()} CPUs; all times in milliseconds`);
for (const [name, measure] of Object.entries(SECTIONS)) {
  if (!only || only.includes(name)) await measure();
}
if (targets.length > 0) {
  console.log(heading(`Targets: ${targets.filter((t) => t.holds).length} of ${targets.length} hold`));
  for (const { target, judged, holds } of targets) console.log(targetRow(target, judged, holds));
}
console.log(`\nBench took ${((performance.now() - began) / 1000).toFixed(1)} s (without the build).`);
