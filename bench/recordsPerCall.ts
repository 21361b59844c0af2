// What a call costs the audit log: records and bytes per call of the built-in echo (auto-allowed,
// no side effects), and the echo's latency and throughput through a real gate's executor (sandboxed
// tool process, audit in SQLite), one agent at a time and 16 at once.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGate } from '../main/gate/createGate';
import { openDatabase } from '../main/audit/sqlite';
import { percentile, timeSequential } from './benchResult';

const TEXT = 'hello from the bench';

/** The numbers this bench prints, for a person comparing two runs. */
export interface RecordsPerCall {
  calls: number;
  records: number;
  recordsPerCall: number;
  /** Bytes of the stored rows (every column's text) per call. */
  bytesPerCall: number;
  p50Ms: number;
  p99Ms: number;
  /** Calls per second with `agents` calls in flight at once. */
  throughput: number;
  agents: number;
  sandbox: string;
}

/** Runs `sequential` echoes one at a time (timed), then `concurrent` with `agents` in flight, and reads the log's size. */
export async function measureRecordsPerCall(sequential = 1000, concurrent = 4000, agents = 16): Promise<RecordsPerCall> {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-bench-records-'));
  mkdirSync(join(root, 'workspace'));
  const home = join(root, 'home');
  const gate = await createGate({ home, workspace: join(root, 'workspace') });
  const echo = async () => {
    const result = await gate.executor.call({ tool: 'echo', arguments: { text: TEXT }, source: 'test' });
    if (!result.ok) throw new Error(`echo through the gate failed: ${JSON.stringify(result.error)}`);
  };
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
    const sandbox = gate.sandbox.kind === 'bubblewrap' ? 'bubblewrap' : 'none';
    await gate.close();
    const db = openDatabase(join(home, 'audit.db'), { readOnly: true });
    const totals = db
      .prepare('SELECT COUNT(*) AS records, COUNT(DISTINCT call_id) AS calls, SUM(LENGTH(call_id) + LENGTH(kind) + LENGTH(time) + LENGTH(payload) + LENGTH(prev_hash) + LENGTH(hash) + 8) AS bytes FROM audit')
      .get() as { records: number; calls: number; bytes: number };
    db.close();
    return {
      calls: totals.calls,
      records: totals.records,
      recordsPerCall: totals.records / totals.calls,
      bytesPerCall: Math.round(totals.bytes / totals.calls),
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
