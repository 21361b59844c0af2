// What a call costs the audit log: records and bytes per call of the built-in echo (auto-allowed,
// no side effects) and of write_file (a tool that writes, allowed by permissive mode), and the echo's
// latency and throughput through a real gate's executor (sandboxed tool process, audit in SQLite),
// one agent at a time and 16 at once. Beside the bytes as stored, the bytes the same steps take as
// one record each (the shape logs had before a record held several steps), computed from the log.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGate, type Gate } from '../main/gate/createGate';
import type { StoredRow as Row } from '../main/audit/chainWalk';
import { openDatabase } from '../main/audit/sqlite';
import { CallStepsPayloadSchema, STEPS_KINDS } from '../shared/audit';
import { canonicalize } from '../shared/canonicalJson';
import { percentile, timeSequential } from './benchResult';

const TEXT = 'hello from the bench';

/** The log's cost per call of one tool. */
export interface LogCost {
  calls: number;
  recordsPerCall: number;
  /** Bytes of the stored rows (every column's text) per call. */
  bytesPerCall: number;
  /** The same steps as one record each: what the log took per call before. */
  bytesPerCallOneRecordPerStep: number;
}

/** The numbers this bench prints, for a person comparing two runs. */
export interface RecordsPerCall {
  echo: LogCost;
  writeFile: LogCost;
  p50Ms: number;
  p99Ms: number;
  /** Echo calls per second with `agents` calls in flight at once. */
  throughput: number;
  agents: number;
  sandbox: string;
}

/** Bytes of a row's columns as text (the seq counted as 8). */
function rowBytes(row: Pick<Row, 'call_id' | 'kind' | 'time' | 'payload'>): number {
  return row.call_id.length + row.kind.length + row.time.length + Buffer.byteLength(row.payload) + 64 + 64 + 8;
}

const HOLDS_STEPS = new Set<string>(STEPS_KINDS);

/** The log's cost per call of the calls of one tool (their records' payloads name it). */
function logCost(rows: readonly Row[], callIds: ReadonlySet<string>): LogCost {
  let records = 0;
  let bytes = 0;
  let asSteps = 0;
  for (const row of rows) {
    if (!callIds.has(row.call_id)) continue;
    records++;
    bytes += rowBytes(row);
    if (!HOLDS_STEPS.has(row.kind)) {
      asSteps += rowBytes(row);
      continue;
    }
    for (const step of CallStepsPayloadSchema.parse(JSON.parse(row.payload)).steps) {
      asSteps += rowBytes({ call_id: row.call_id, kind: step.kind, time: step.time, payload: canonicalize(step.payload ?? null) });
    }
  }
  const calls = callIds.size;
  return { calls, recordsPerCall: records / calls, bytesPerCall: Math.round(bytes / calls), bytesPerCallOneRecordPerStep: Math.round(asSteps / calls) };
}

async function call(gate: Gate, tool: string, args: unknown, ids: Set<string>): Promise<void> {
  const result = await gate.executor.call({ tool, arguments: args, source: 'test' });
  if (!result.ok) throw new Error(`${tool} through the gate failed: ${JSON.stringify(result.error)}`);
  ids.add(result.meta.callId);
}

/** Runs `sequential` echoes one at a time (timed), then `concurrent` with `agents` in flight, then `writes` write_file calls, and reads the log's size. */
export async function measureRecordsPerCall(sequential = 1000, concurrent = 4000, agents = 16, writes = 200): Promise<RecordsPerCall> {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-bench-records-'));
  mkdirSync(join(root, 'workspace'));
  const home = join(root, 'home');
  const gate = await createGate({ home, workspace: join(root, 'workspace'), policyMode: 'permissive' });
  const echoes = new Set<string>();
  const written = new Set<string>();
  const echo = () => call(gate, 'echo', { text: TEXT }, echoes);
  try {
    await timeSequential(100, echo);
    const samples: number[] = [];
    await timeSequential(sequential, echo, samples);
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: agents }, async () => {
        while (next++ < concurrent) await echo();
      }),
    );
    const throughput = concurrent / ((performance.now() - started) / 1000);
    await timeSequential(writes, (i) => call(gate, 'write_file', { path: `file-${i % 10}.txt`, content: `${TEXT} ${i}\n` }, written));
    const sandbox = gate.sandbox.kind === 'bubblewrap' ? 'bubblewrap' : 'none';
    await gate.close();
    const db = openDatabase(join(home, 'audit.db'), { readOnly: true });
    const rows = db.prepare('SELECT * FROM audit').all() as unknown as Row[];
    db.close();
    return {
      echo: logCost(rows, echoes),
      writeFile: logCost(rows, written),
      p50Ms: percentile(samples, 50),
      p99Ms: percentile(samples, 99),
      throughput: Math.round(throughput),
      agents,
      sandbox,
    };
  } finally {
    await gate.close().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  }
}
