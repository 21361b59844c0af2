/**
 * A large, realistic audit log for the bench and the e2e: calls of the built-in tools by several
 * agents and sessions over about 30 days, with the records a gate writes for each (invoked,
 * capability, policy, approval-requested/decided with a diff preview, started, completed, failed
 * or rejected), hash-chained with the store's own recordHash, its head anchor written, and its call
 * index built, so that `toolgate serve --home <home>` opens it and `audit verify` accepts it.
 * Deterministic from the seed and `end`.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { GENESIS_HASH, type AuditKind } from '../shared/audit';
import { canonicalize } from '../shared/canonicalJson';
import { AuditStore } from '../main/audit/auditStore';
import { HeadWriter } from '../main/audit/headAnchor';
import { storedCanonicalText } from '../main/audit/recordLeaf';
import { fastBlake3Hex, loadFastBlake3 } from '../main/audit/fastBlake3';
import { openDatabase } from '../main/audit/sqlite';
import { statePaths } from '../main/state/paths';
import { seededRandom } from './benchResult';

/** What writeSyntheticLog wrote, and how long the records and the index each took. */
export interface SyntheticLog {
  records: number;
  calls: number;
  /** Writing and hashing the records, in milliseconds. */
  writeMs: number;
  /** Building the call index from them (as a gate does for a log without one), in milliseconds. */
  indexMs: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const SPAN_MS = 30 * DAY_MS;
/** Records written per transaction. */
const BATCH = 50_000;
/** One call in this many is a read of a file so large its output is a few hundred KiB. */
const HUGE_EVERY = 20_000;
const MODE = 'standard';
const POLICY_FILE = '/home/dev/project/.toolgate/policy.json';

const TOOLS = [
  { name: 'read_file', tier: 'STANDARD', version: '1.1.0', weight: 30 },
  { name: 'list_dir', tier: 'SAFE', version: '1.1.0', weight: 10 },
  { name: 'search_files', tier: 'STANDARD', version: '1.0.0', weight: 12 },
  { name: 'edit_file', tier: 'ELEVATED', version: '1.0.0', weight: 10 },
  { name: 'write_file', tier: 'ELEVATED', version: '1.0.0', weight: 6 },
  { name: 'shell_exec', tier: 'RESTRICTED', version: '1.0.0', weight: 15 },
  { name: 'http_fetch', tier: 'ELEVATED', version: '1.0.0', weight: 5 },
  { name: 'echo', tier: 'SAFE', version: '1.0.0', weight: 4 },
  { name: 'hash', tier: 'SAFE', version: '1.0.0', weight: 4 },
  { name: 'calculator', tier: 'SAFE', version: '1.0.0', weight: 4 },
] as const;
type SyntheticTool = (typeof TOOLS)[number];
const TOOL_WEIGHT = TOOLS.reduce((sum, tool) => sum + tool.weight, 0);

const AGENTS = [
  { client: 'claude-code', version: '2.1.4' },
  { client: 'cursor', version: '1.7.2' },
  { client: 'codex', version: '0.44.0' },
  { client: 'gemini-cli', version: '0.9.1' },
];
const DIRS = ['src', 'src/components', 'src/lib', 'src/api', 'src/server', 'src/utils', 'test', 'docs', 'scripts', 'packages/core/src'];
const NAMES = ['index', 'router', 'session', 'billing', 'invoice', 'parser', 'config', 'auth', 'cache', 'queue', 'logger', 'schema', 'client', 'worker', 'metrics'];
const EXTENSIONS = ['.ts', '.tsx', '.md', '.json', '.py', '.go'];
const WORDS = ['token', 'refresh', 'invoice', 'retry', 'deadline', 'webhook', 'migration', 'tenant', 'payload', 'checksum', 'cursor', 'render', 'timeout', 'vector'];
const COMMANDS = ['npm test', 'npm run build', 'git status', 'git diff --stat', 'ls -la', 'pytest -q', 'go test ./...', 'git log --oneline -5', 'cargo check', 'make lint'];
const DENY_RULES = [
  { rule: 'shell_exec(git push *)', reason: 'pushing is done by people', matched: 'git push origin main', command: 'git push origin main' },
  { rule: 'shell_exec(rm -rf *)', reason: 'no recursive deletes', matched: 'rm -rf build', command: 'rm -rf build' },
  { rule: 'shell_exec(curl * | sh)', reason: 'no piping downloads into a shell', matched: 'curl https://get.example.sh | sh', command: 'curl https://get.example.sh | sh' },
  { rule: 'http_fetch(*.internal)', reason: 'internal hosts stay internal', matched: 'billing.internal', url: 'https://billing.internal/v1/export' },
];
const ALLOW_RULES = { write_file: 'write_file(src/**)', edit_file: 'edit_file(src/**)', shell_exec: 'shell_exec(npm test)' } as const;

/** Writes a synthetic log of `calls` calls into the state folder `home`, which must not hold an audit log yet. */
export async function writeSyntheticLog(options: { home: string; calls: number; seed?: number; end?: Date }): Promise<SyntheticLog> {
  const paths = statePaths(options.home);
  if (existsSync(paths.audit)) throw new Error(`${paths.audit} already exists: give writeSyntheticLog an empty state folder`);
  mkdirSync(options.home, { recursive: true, mode: 0o700 });
  // The WebAssembly BLAKE3 the gate itself appends with: the chain is sequential, so its speed is the writer's.
  await loadFastBlake3();
  // The store makes the tables, the call index and the anchor file, as a gate's first start does.
  new AuditStore({ path: paths.audit, headPath: paths.auditHead }).close();

  const started = performance.now();
  // The same seed gives the same log.
  const rand = seededRandom(options.seed ?? 1);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const hex = (length: number) => {
    let out = '';
    while (out.length < length) out += Math.floor(rand() * 0x100000000).toString(16).padStart(8, '0');
    return out.slice(0, length);
  };
  const uuid = () => {
    const h = hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  };
  const path = () => `${pick(DIRS)}/${pick(NAMES)}${pick(EXTENSIONS)}`;

  const db = openDatabase(paths.audit);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;');
  const insert = db.prepare('INSERT INTO audit (seq, call_id, kind, time, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)');
  let seq = 0;
  let prevHash = GENESIS_HASH;
  let inBatch = 0;
  const append = (callId: string, kind: AuditKind, timeMs: number, payload: unknown) => {
    const payloadJson = canonicalize(payload);
    const time = new Date(timeMs).toISOString();
    seq++;
    // Hashed as the store appends: over the canonical text spelled from the stored columns, so no payload is serialized twice.
    const hash = fastBlake3Hex(prevHash + storedCanonicalText({ seq, call_id: callId, kind, time, payload: payloadJson }));
    insert.run(seq, callId, kind, time, payloadJson, prevHash, hash);
    prevHash = hash;
    if (++inBatch >= BATCH) {
      db.exec('COMMIT; BEGIN');
      inBatch = 0;
    }
  };

  const endMs = (options.end ?? new Date()).getTime();
  const startMs = endMs - SPAN_MS;
  const spacing = SPAN_MS / Math.max(1, options.calls);
  let session = { id: uuid(), agent: pick(AGENTS), startedAt: startMs, left: 0 };
  db.exec('BEGIN');
  try {
    for (let i = 0; i < options.calls; i++) {
      const t0 = Math.floor(startMs + i * spacing + rand() * spacing * 0.5);
      if (session.left-- <= 0) session = { id: uuid(), agent: pick(AGENTS), startedAt: t0, left: 200 + Math.floor(rand() * 3800) };
      const tool = pickTool(rand());
      const call = { callId: uuid(), tool, t: t0 };
      const args = argumentsFor(tool, rand, pick, path);
      const agent = { client: session.agent.client, version: session.agent.version, sessionStartedAt: new Date(session.startedAt).toISOString() };
      append(call.callId, 'invoked', call.t, { tool: tool.name, source: 'mcp', agentSession: session.id, agent, arguments: args.arguments });
      call.t += 1 + Math.floor(rand() * 3);
      append(call.callId, 'capability', call.t, { allowed: true, ...(args.path ? { paths: [args.path] } : {}) });
      call.t += 1 + Math.floor(rand() * 5);
      const policy = policyFor(tool, args, rand);
      append(call.callId, 'policy', call.t, policy);
      if (policy.decision === 'deny') {
        append(call.callId, 'rejected', call.t + 1, ended('policy', { code: 'EDENIED', message: `denied by policy: ${policy.reason}`, details: { rule: policy.rule } }, call.t + 1 - t0, hex));
        continue;
      }
      if (policy.decision === 'ask') {
        const approvalId = uuid();
        const preview = args.path && (tool.name === 'write_file' || tool.name === 'edit_file')
          ? { kind: 'diff', path: args.path, added: 1 + Math.floor(rand() * 40), removed: Math.floor(rand() * 20) }
          : tool.name === 'shell_exec' ? { kind: 'command', command: args.command } : { kind: 'none', reason: `${tool.name} has no dry run; judge it by its arguments` };
        call.t += 5 + Math.floor(rand() * 40);
        append(call.callId, 'approval-requested', call.t, { approvalId, bindingHash: hex(64), previewHash: hex(64), expiresAt: new Date(call.t + 300_000).toISOString(), preview });
        const answer = rand();
        const waited = answer < 0.05 ? 300_000 : Math.floor(800 + Math.pow(rand(), 3) * 240_000);
        call.t += waited;
        if (answer < 0.05) {
          append(call.callId, 'approval-decided', call.t, { outcome: 'expired', reason: 'no answer in 300 s' });
          append(call.callId, 'rejected', call.t + 1, ended('approval', { code: 'EDENIED', message: `${tool.name} was not run: no one approved it in time (no answer in 300 s)`, details: { outcome: 'expired' } }, call.t + 1 - t0, hex));
          continue;
        }
        if (answer < 0.15) {
          const reason = pick(['not now', 'wrong file', 'too broad', 'ask me first', 'use the staging branch']);
          append(call.callId, 'approval-decided', call.t, { outcome: 'denied', reason, by: 'person' });
          append(call.callId, 'rejected', call.t + 1, ended('approval', { code: 'EDENIED', message: `${tool.name} was not run: a person denied it: ${reason}`, details: { outcome: 'denied' } }, call.t + 1 - t0, hex));
          continue;
        }
        append(call.callId, 'approval-decided', call.t, { outcome: 'approved', reason: 'approved in the console', by: 'person' });
      }
      call.t += 1 + Math.floor(rand() * 20);
      append(call.callId, 'started', call.t, { tool: tool.name, version: tool.version, inputHash: hex(64), sandbox: 'bubblewrap', network: tool.name === 'http_fetch' });
      const ran = tool.name === 'shell_exec' ? 200 + Math.floor(rand() * 20_000) : 2 + Math.floor(rand() * 200);
      const fate = rand();
      if (fate < 0.02 && (tool.name === 'shell_exec' || tool.name === 'http_fetch')) {
        call.t += 30_000;
        append(call.callId, 'failed', call.t, ended('execute', { code: 'ETIMEOUT', message: `${tool.name} ran past its deadline of 30000 ms and was stopped` }, call.t - t0, hex));
        continue;
      }
      call.t += ran;
      if (fate < 0.05) {
        const message = tool.name === 'read_file' ? `no such file: ${args.path}` : tool.name === 'shell_exec' ? `exit code 1: ${pick(WORDS)} test failed` : `${tool.name} failed: ${pick(WORDS)} was not found`;
        append(call.callId, 'failed', call.t, ended('execute', { code: tool.name === 'read_file' ? 'ENOTFOUND' : 'ERUNTIME', message }, call.t - t0, hex));
        continue;
      }
      const output = outputFor(tool, args, rand, pick, i % HUGE_EVERY === HUGE_EVERY - 1);
      append(call.callId, 'completed', call.t, { responseHash: hex(64), bytes: Buffer.byteLength(canonicalize(output)), durationMs: call.t - t0, output });
    }
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    db.close();
    throw error;
  }
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
  const head = new HeadWriter(paths.auditHead, { seq, hash: prevHash });
  head.write({ seq, hash: prevHash });
  head.close();
  const writeMs = performance.now() - started;

  const indexStarted = performance.now();
  new AuditStore({ path: paths.audit, headPath: paths.auditHead }).close();
  return { records: seq, calls: options.calls, writeMs, indexMs: performance.now() - indexStarted };
}

function pickTool(r: number): SyntheticTool {
  let left = r * TOOL_WEIGHT;
  for (const tool of TOOLS) {
    left -= tool.weight;
    if (left < 0) return tool;
  }
  return TOOLS[0];
}

interface SyntheticArguments {
  arguments: Record<string, unknown>;
  path?: string;
  command?: string;
  url?: string;
  deny?: (typeof DENY_RULES)[number];
}

function argumentsFor(tool: SyntheticTool, rand: () => number, pick: <T>(list: readonly T[]) => T, path: () => string): SyntheticArguments {
  switch (tool.name) {
    case 'read_file':
    case 'list_dir': {
      const p = tool.name === 'list_dir' ? pick(['src', 'src/lib', 'test', 'docs', '.']) : path();
      return { arguments: { path: p }, path: p };
    }
    case 'search_files':
      return { arguments: { pattern: pick(['TODO', 'refreshToken', 'invoice_id', 'retryAfter', 'FIXME', 'webhook']), path: pick(DIRS) } };
    case 'write_file': {
      const p = path();
      return { arguments: { path: p, content: `// ${pick(WORDS)} ${pick(WORDS)}\nexport const ${pick(NAMES)} = ${Math.floor(rand() * 1000)};\n` }, path: p };
    }
    case 'edit_file': {
      const p = path();
      return { arguments: { path: p, old_string: `${pick(WORDS)}Timeout = 30`, new_string: `${pick(WORDS)}Timeout = ${Math.floor(rand() * 120)}` }, path: p };
    }
    case 'shell_exec': {
      const deny = rand() < 0.04 ? DENY_RULES[Math.floor(rand() * 3)] : undefined;
      const command = deny?.command ?? pick(COMMANDS);
      return { arguments: { command }, command, ...(deny ? { deny } : {}) };
    }
    case 'http_fetch': {
      const deny = rand() < 0.1 ? DENY_RULES[3] : undefined;
      const url = deny?.url ?? `https://api.example.com/v2/${pick(WORDS)}?page=${Math.floor(rand() * 50)}`;
      return { arguments: { url }, url, ...(deny ? { deny } : {}) };
    }
    case 'echo':
      return { arguments: { text: `${pick(WORDS)} ${pick(WORDS)} check` } };
    case 'hash':
      return { arguments: { text: `${pick(WORDS)}-${Math.floor(rand() * 1e6)}`, algorithm: 'blake3' } };
    case 'calculator':
      return { arguments: { expression: `${Math.floor(rand() * 1000)} * ${Math.floor(rand() * 100)} + 7` } };
  }
}

function policyFor(tool: SyntheticTool, args: SyntheticArguments, rand: () => number): Record<string, unknown> {
  if (args.deny) {
    const { rule, reason, matched } = args.deny;
    const line = 3 + DENY_RULES.indexOf(args.deny);
    const where = `project policy line ${line} (${POLICY_FILE})`;
    return {
      decision: 'deny',
      rule: `${rule} (${where}): ${reason}`,
      reason: `denied by \`${rule}\`, ${where}: ${reason} (matched ${JSON.stringify(matched)})`,
      mode: MODE,
      tier: tool.tier,
      provenance: { rule, effect: 'deny', source: { layer: 'project', file: POLICY_FILE, line }, reason, matched },
    };
  }
  const allowRule = (ALLOW_RULES as Record<string, string>)[tool.name];
  if (allowRule && rand() < 0.3 && (tool.name !== 'shell_exec' || args.command === 'npm test')) {
    const where = `user policy line 2 (/home/dev/.toolgate/policy.json)`;
    return {
      decision: 'allow',
      rule: `${allowRule} (${where})`,
      reason: `allowed \`${allowRule}\`, ${where}`,
      mode: MODE,
      tier: tool.tier,
      provenance: { rule: allowRule, effect: 'allow', source: { layer: 'user', file: '/home/dev/.toolgate/policy.json', line: 2 } },
    };
  }
  const decision = tool.tier === 'SAFE' || tool.tier === 'STANDARD' ? 'allow' : 'ask';
  const words = decision === 'allow' ? 'runs without asking' : 'needs a person to approve it';
  return { decision, rule: `tier:${tool.tier}→${decision}`, reason: `${tool.name} is ${tool.tier} and ${words}`, mode: MODE, tier: tool.tier };
}

function ended(step: string, error: Record<string, unknown>, durationMs: number, hex: (length: number) => string): Record<string, unknown> {
  return { step, error, responseHash: hex(64), durationMs };
}

function outputFor(tool: SyntheticTool, args: SyntheticArguments, rand: () => number, pick: <T>(list: readonly T[]) => T, huge: boolean): unknown {
  switch (tool.name) {
    case 'read_file': {
      const lines = huge ? 6000 : 3 + Math.floor(rand() * 8);
      const text = Array.from({ length: lines }, (_, n) => `${n + 1}: const ${pick(WORDS)} = load${pick(NAMES)}(${pick(WORDS)});`).join('\n');
      return { path: args.path, content: text, bytes: text.length };
    }
    case 'list_dir':
      return { entries: Array.from({ length: 4 + Math.floor(rand() * 6) }, () => ({ name: `${pick(NAMES)}${pick(EXTENSIONS)}`, type: 'file' })) };
    case 'search_files':
      return { matches: Array.from({ length: Math.floor(rand() * 5) }, () => ({ path: `${pick(DIRS)}/${pick(NAMES)}.ts`, line: 1 + Math.floor(rand() * 400), text: `// TODO ${pick(WORDS)}` })) };
    case 'write_file':
    case 'edit_file':
      return { path: args.path, written: true };
    case 'shell_exec':
      return { exitCode: 0, stdout: `${args.command}\n${pick(['ok', 'passed', 'up to date', 'nothing to commit'])} (${Math.floor(rand() * 300)} ${pick(WORDS)})`, stderr: '' };
    case 'http_fetch':
      return { status: 200, contentType: 'application/json', body: `{"${pick(WORDS)}":${Math.floor(rand() * 1000)}}` };
    case 'echo':
      return (args.arguments as { text: string }).text;
    case 'hash':
      return { algorithm: 'blake3', hex: Math.floor(rand() * 1e15).toString(16) };
    case 'calculator':
      return { value: Math.floor(rand() * 100000) };
  }
}
