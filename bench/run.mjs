// `npm run bench`: timings a person can compare, measured in one run on this machine, and the targets
// they are held to, each against its baseline from the same run. Sections (BENCH_ONLY=a,b runs some):
//   1. [mcp] an auto-allowed echo through the whole gate over MCP (Streamable HTTP, official SDK client)
//      beside the same echo served by a bare MCP SDK server, as the baseline: sequential latency, and
//      calls/s of BENCH_AGENTS (16) agents at once, in BENCH_ROUNDS (3) rounds of BENCH_ROUND_MS (2000)
//      each after BENCH_LOAD_WARMUP_SECONDS (10) of the same load untimed (the gateway section's too), then
//      the gate alone for BENCH_MEMORY_SECONDS (60) for the memory its tree holds (bench/mcpEcho.ts);
//      the sequential calls of this section and the next are spread over BENCH_INSTANCES (3) processes of
//      each server, started in turn (one process's speed is a draw of its own)
//   1b. [gateway] an echo on a stdio MCP server through Toolgate (reviewed SAFE, sandboxed, audited) beside
//      supergateway --stateful and mcp-proxy in front of the same server: sequential latency, BENCH_AGENTS
//      agents' calls/s and each process tree's RSS, alternated (bench/gatewayEcho.ts)
//   1c. [hook] `toolgate hook claude-code` answering with a gate running (a Read allowed by a rule) and
//      `toolgate --help`, each beside `node -e 0`, BENCH_HOOK_RUNS (40) runs each, alternated (bench/hookStart.ts)
//   1d. [effects] what recording a call's effects (for undo) adds to write_file and to shell_exec in a workspace of
//      BENCH_EFFECTS_FILES (5000) files, beside a gate recording nothing, BENCH_EFFECTS_CALLS (30) each, alternated;
//      and undoing a shell_exec that wrote 100 files, BENCH_EFFECTS_UNDOS (5) times (bench/effectsCost.ts)
//   2. [tools] a tool process's cold start, plain and in bubblewrap (bench/toolProcesses.ts), and
//      needed → ready per sandbox profile with spare processes and without
//   3. warm 1 KiB and 1 MiB round trips through the tool-process pool, plain and in bubblewrap, and the
//      1 MiB's pieces alone (framing, canonical form, hash, the executor's output step)
//   4. deadline → dead for a tool that obeys SIGTERM and one that ignores it
//   4b. [approval] Approve → result for a small write_file through a real gate, beside the same write
//      auto-allowed (bench/approvalLatency.ts)
//   4c. [team] 3 gates × BENCH_TEAM_AGENTS (16) agents, BENCH_TEAM_CALLS (5) prompting writes each, through one
//      nats-server: prompt → remote console and remote decision → its gate, p95; and BENCH_TEAM_ALLOWED (400)
//      auto-allowed read_file calls on a gate in a team beside one alone (bench/teamLatency.ts)
//   5. [gate] an auto-allowed call through the gate's executor beside a bare child_process IPC round trip
//      (bench/gateOverhead.ts)
//   5b. [wasm] a pure WASM tool (the sample text_stats) through the gate's executor beside the built-in echo
//      (bench/wasmTool.ts)
//   6. [policy] policy evaluation for 1,000 rules beside the tier policy alone (bench/policyEvaluation.ts)
//   7. [explorer] the audit explorer over a generated log of BENCH_AUDIT_CALLS calls (default 1,000,000):
//      pages, facets, search, charts, and the index build (bench/auditExplorer.ts)
//   8. [proof] audit verify over BENCH_AUDIT_RECORDS records (default 1,000,000) beside the old walk, verify
//      --checkpoint, and the checkpoint writer's cost per appended record (bench/auditProof.ts)
//   9. [commit] audit appends of call-shaped records, group commit beside one transaction per record, with 1
//      and 16 calls interleaved, in "process" and "power" durability (bench/auditCommit.ts; BENCH_COMMIT_CALLS,
//      default 2000 calls per row, a quarter in "power"; BENCH_COMMIT_BLOCKS, default 10)
//  10. [console] BENCH_LIVE_RATE calls/s (default 100) for BENCH_LIVE_SECONDS (60) from MCP agents while
//      the console's Live view is open in headless Chromium: frame times and the gate's event-loop lag
//      beside both idle, and the gate's RSS idle, under load and BENCH_LIVE_SETTLE_SECONDS (60) after;
//      then the same load with no console open for BENCH_LIVE_BARE_SECONDS (as long; 0 skips), for
//      the gate's lag without a console (bench/consoleLoad.ts)
// Counts: BENCH_CALLS (1 and 5, default 1000), BENCH_COLD (20), BENCH_SMALL (200), BENCH_LARGE (30),
// BENCH_DEADLINES (10), BENCH_SPARES (10 calls per profile),
// BENCH_APPROVALS (30), BENCH_FIRST_APPROVALS (8 gates started for their first write).
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadInternal } from './loadInternal.mjs';
import { differenceRow, heading, row, summarize, targetRow } from './stats.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const WARMUP = 50;
/**
 * Calls each echo server answers before any is timed. The gate and the proxies are long-running
 * servers, measured warm: after 50 calls V8 has not yet compiled the gate's longer path (its p50
 * then came out 6–25 % slower than after 1,000, the proxies' about 3 % slower).
 */
const ECHO_WARMUP = 1000;
const BLOCK = 100;
/** A count from the environment (`fallback` when unset): a whole number of at least `least` (0 where 0 skips a part), or the run stops naming the variable. */
const count = (name, fallback, least = 1) => {
  const raw = process.env[name];
  if (raw === undefined) return fallback;
  const value = Number(raw.trim() === '' ? Number.NaN : raw);
  if (!Number.isSafeInteger(value) || value < least) {
    console.error(`${name}=${raw} is not a whole number of at least ${least}: give one (its default is ${fallback}), or leave it unset`);
    process.exit(2);
  }
  return value;
};
const CALLS = count('BENCH_CALLS', 1000);

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

/** How much the echo sections (mcp, gateway) do, read at the start: a mistyped count stops the run before anything is measured. */
const ECHO_COUNTS = {
  calls: CALLS,
  block: BLOCK,
  instances: count('BENCH_INSTANCES', 3),
  warmup: count('BENCH_ECHO_WARMUP', ECHO_WARMUP, 0),
  agents: count('BENCH_AGENTS', 16),
  roundMs: count('BENCH_ROUND_MS', 2000),
  rounds: count('BENCH_ROUNDS', 3),
  loadWarmupMs: count('BENCH_LOAD_WARMUP_SECONDS', 10, 0) * 1000,
  memoryMs: count('BENCH_MEMORY_SECONDS', 60, 0) * 1000,
};

/**
 * The sections, in the order a full run takes them. BENCH_ONLY=name[,name…] runs only those
 * (e.g. BENCH_ONLY=policy, BENCH_ONLY=explorer, BENCH_ONLY=proof).
 */
const SECTIONS = {
  mcp: () => typescript('bench/mcpEcho.ts', 'measureMcpEcho', ECHO_COUNTS),
  gateway: () => typescript('bench/gatewayEcho.ts', 'measureGatewayEcho', ECHO_COUNTS),
  hook: () => typescript('bench/hookStart.ts', 'measureHookStart', count('BENCH_HOOK_RUNS', 40)),
  effects: () => typescript('bench/effectsCost.ts', 'measureEffectsCost', count('BENCH_EFFECTS_FILES', 5000), count('BENCH_EFFECTS_CALLS', 30), count('BENCH_EFFECTS_UNDOS', 5)),
  tools: () =>
    typescript('bench/toolProcesses.ts', 'measureToolProcesses', {
      coldStarts: count('BENCH_COLD', 20),
      smallCalls: count('BENCH_SMALL', 200),
      largeCalls: count('BENCH_LARGE', 30),
      deadlines: count('BENCH_DEADLINES', 10),
      spareCalls: count('BENCH_SPARES', 10),
    }),
  approval: () => typescript('bench/approvalLatency.ts', 'measureApprovalLatency', count('BENCH_APPROVALS', 30), count('BENCH_FIRST_APPROVALS', 8)),
  team: () => typescript('bench/teamLatency.ts', 'measureTeamLatency', count('BENCH_TEAM_AGENTS', 16), count('BENCH_TEAM_CALLS', 5), count('BENCH_TEAM_ALLOWED', 400)),
  gate: () => typescript('bench/gateOverhead.ts', 'measureGateOverhead', CALLS, BLOCK, WARMUP),
  wasm: () => typescript('bench/wasmTool.ts', 'measureWasmTool', CALLS, BLOCK, WARMUP),
  // Ten decisions per gate call: each is microseconds, so more samples steady the percentiles.
  policy: () => typescript('bench/policyEvaluation.ts', 'measurePolicyEvaluation', CALLS * 10, BLOCK * 10, WARMUP * 10),
  explorer: () => typescript('bench/auditExplorer.ts', 'measureAuditExplorer', AUDIT_CALLS),
  proof: () => typescript('bench/auditProof.ts', 'measureAuditProof', ...AUDIT_PROOF),
  work: () => typescript('bench/testedWork.ts', 'measureTestedWork', count('BENCH_WORK_ROUNDS', 5)),
  flood: () => typescript('bench/argumentFlood.ts', 'measureArgumentFlood', count('BENCH_FLOOD_ROUNDS', 3)),
  commit: () => typescript('bench/auditCommit.ts', 'measureAuditCommit', count('BENCH_COMMIT_CALLS', 2000), count('BENCH_COMMIT_BLOCKS', 10)),
  console: () =>
    typescript('bench/consoleLoad.ts', 'measureConsoleLoad', {
      callsPerSecond: count('BENCH_LIVE_RATE', 100),
      loadSeconds: count('BENCH_LIVE_SECONDS', 60),
      idleSeconds: count('BENCH_LIVE_IDLE_SECONDS', 5, 0),
      settleSeconds: count('BENCH_LIVE_SETTLE_SECONDS', 60, 0),
      agents: count('BENCH_LIVE_AGENTS', 4),
      bareSeconds: count('BENCH_LIVE_BARE_SECONDS', count('BENCH_LIVE_SECONDS', 60), 0),
    }),
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
