// The audit log's proof: `audit verify` over a large log (records/s) beside the old way it checked
// each record (parse the payload, re-canonicalize, pure-JS BLAKE3) measured in the same run; the
// checkpoint writer's cost per appended record (append with it beside append without); and the
// check of the log against a signed checkpoint (`audit verify --checkpoint`).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { GENESIS_HASH, type AuditKind } from '../shared/audit';
import { AuditStore } from '../main/audit/auditStore';
import { checkAgainstCheckpoint } from '../main/audit/checkpointCheck';
import { prepareCheckpointDir } from '../main/audit/checkpointFolder';
import { loadOrCreateCheckpointKey } from '../main/audit/checkpointKey';
import { checkpointOrigin, CheckpointWriter } from '../main/audit/checkpointWriter';
import { loadFastBlake3 } from '../main/audit/fastBlake3';
import { builtAssets } from '../main/state/paths';
import { recordHash } from '../main/audit/recordHash';
import { openDatabase } from '../main/audit/sqlite';
import type { BenchSection } from './benchResult';

const KINDS: AuditKind[] = ['invoked', 'policy', 'started', 'completed'];

/** A call's four records, with arguments and output of a realistic size. */
function recordOf(i: number): { callId: string; kind: AuditKind; payload: unknown } {
  const call = Math.floor(i / 4);
  const kind = KINDS[i % 4]!;
  const callId = `call-${call.toString(36).padStart(8, '0')}`;
  const payloads: Record<string, unknown> = {
    invoked: { tool: 'write_file', arguments: { path: `src/module${call % 97}/file${call}.ts`, content: `export const value${call} = ${call}; // ${'x'.repeat(80)}` }, agent: 'claude-code', agentSession: `s-${call % 13}` },
    policy: { decision: 'allow', tier: 'SAFE', reason: 'inside the workspace' },
    started: { pid: 1000 + (call % 5000), sandbox: 'bubblewrap' },
    completed: { output: { text: `wrote ${60 + (call % 40)} bytes to src/module${call % 97}/file${call}.ts` }, durationMs: call % 300 },
  };
  return { callId, kind, payload: payloads[kind] };
}

/** The check `audit verify` did before: parse each payload, re-canonicalize it, hash with pure-JS BLAKE3. */
function verifyTheOldWay(path: string): number {
  const db = openDatabase(path, { readOnly: true });
  try {
    let prev = GENESIS_HASH;
    let count = 0;
    for (const row of db.prepare('SELECT * FROM audit ORDER BY seq').iterate() as unknown as Iterable<{ seq: number; call_id: string; kind: AuditKind; time: string; payload: string; prev_hash: string; hash: string }>) {
      if (row.prev_hash !== prev) throw new Error(`record ${row.seq} does not link`);
      const hash = recordHash(row.prev_hash, { seq: row.seq, callId: row.call_id, kind: row.kind, time: row.time, payload: JSON.parse(row.payload) as unknown });
      if (hash !== row.hash) throw new Error(`record ${row.seq} does not match`);
      prev = row.hash;
      count++;
    }
    return count;
  } finally {
    db.close();
  }
}

/** Wall time and this thread's CPU time (user + system) of one run: on a shared machine the CPU time shows the code's own cost. */
function timed<T>(run: () => T): { ms: number; cpuMs: number; value: T } {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const value = run();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, value };
}

const APPEND_BLOCK = 250;

function appendBlock(store: AuditStore, offset: number): void {
  for (let i = 0; i < APPEND_BLOCK; i++) store.append(recordOf(offset + i));
  // The block's records committed (and heard by the writer) inside the timing, as the gate's next turn would.
  store.commit();
}

function median(samples: number[]): number {
  return [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
}

const rate = (records: number, ms: number) => `${Math.round(records / (ms / 1000)).toLocaleString('en-US')} records/s`;

/** Writes `records` records, then times verify (new and old, alternated `rounds` times), appends with and without the checkpoint writer, and the checkpoint check. */
/** `appendSample` records are appended to each of two fresh logs, with and without the writer, in blocks of 250. */
export async function measureAuditProof(records: number, rounds: number, appendSample: number): Promise<BenchSection> {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-bench-proof-'));
  const home = join(root, 'home');
  const checkpoints = join(root, 'checkpoints');
  try {
    await loadFastBlake3();
    const paths = { path: join(root, 'audit.db'), headPath: join(root, 'audit.head') };
    const store = new AuditStore(paths);
    mkdirSync(home, { recursive: true });
    const key = loadOrCreateCheckpointKey(home, checkpointOrigin(store.logId()!));
    for (let i = 0; i < records; i++) store.append(recordOf(i));
    // The gate's writer started on the whole log: it reads it once, then signs the checkpoint checked below.
    const writer = new CheckpointWriter({ dir: prepareCheckpointDir(checkpoints, { home, workspace: join(root, 'workspace') }), audit: store, key });
    writer.close();
    store.close();

    // Appends to two fresh logs, one with the writer (a signed checkpoint every 1000 records), in alternating blocks.
    const plain = new AuditStore({ path: join(root, 'plain.db'), headPath: join(root, 'plain.head') });
    const signed = new AuditStore({ path: join(root, 'signed.db'), headPath: join(root, 'signed.head') });
    const signedWriter = new CheckpointWriter({ dir: prepareCheckpointDir(join(root, 'checkpoints-2'), { home, workspace: join(root, 'workspace') }), audit: signed, key });
    const bareBlocks: number[] = [];
    const writerBlocks: number[] = [];
    for (let done = 0; done < appendSample; done += APPEND_BLOCK) {
      bareBlocks.push(timed(() => appendBlock(plain, done)).ms);
      writerBlocks.push(timed(() => appendBlock(signed, done)).ms);
    }
    signedWriter.close();
    plain.close();
    signed.close();

    const parallelRows: number[] = [];
    const newRows: number[] = [];
    const oldRows: number[] = [];
    const newCpu: number[] = [];
    const oldCpu: number[] = [];
    const checkpointRows: number[] = [];
    const reader = new AuditStore({ ...paths, readonly: true });
    const note = readFileSync(writer.checkpointPath, 'utf8');
    const workerFile = builtAssets().chainWorker;
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      const parallel = await reader.verifyInThreads(workerFile);
      if (!existsSync(workerFile) || !parallel.ok || parallel.records !== records) throw new Error(`the parallel walk did not verify the log (is out/main/chainWorker.js built?): ${JSON.stringify(parallel)}`);
      parallelRows.push(performance.now() - started);
      const fresh = timed(() => reader.verify());
      if (!fresh.value.ok || fresh.value.records !== records) throw new Error(`verify failed: ${JSON.stringify(fresh.value)}`);
      newRows.push(fresh.ms);
      newCpu.push(fresh.cpuMs);
      const old = timed(() => verifyTheOldWay(paths.path));
      if (old.value !== records) throw new Error('the old check read another count');
      oldRows.push(old.ms);
      oldCpu.push(old.cpuMs);
      const checked = timed(() => checkAgainstCheckpoint(reader, note, writer.checkpointPath, key.verifier));
      if (!checked.value.ok) throw new Error(`checkpoint check failed: ${checked.value.reason}`);
      checkpointRows.push(checked.ms);
    }
    reader.close();
    return {
      title: `Audit log proof: ${records.toLocaleString('en-US')} records (write_file calls: invoked, policy, started, completed), ${rounds} rounds alternated`,
      rows: [
        { label: 'audit verify as the CLI runs it (worker threads)', samples: parallelRows },
        { label: 'audit verify in one thread', samples: newRows },
        { label: 'audit verify the old way (baseline)', samples: oldRows },
        { label: 'audit verify --checkpoint (tree + proof)', samples: checkpointRows },
        { label: `append ${APPEND_BLOCK} records, checkpoint writer on`, samples: writerBlocks },
        { label: `append ${APPEND_BLOCK} records, no writer (baseline)`, samples: bareBlocks },
      ],
      notes: [
        `audit verify: ${rate(records, median(parallelRows))} as the CLI runs it (${Math.min(4, availableParallelism())} worker threads; target ≥ 500,000 records/s), ${rate(records, median(newRows))} in one thread; the old way: ${rate(records, median(oldRows))} (median of ${rounds} rounds)`,
        `per CPU second (this machine is shared; CPU time leaves out waiting for a core): audit verify in one thread ${rate(records, median(newCpu))}, the old way ${rate(records, median(oldCpu))}`,
        `verify --checkpoint (Merkle tree over every record, consistency proof, signature): ${rate(records, median(checkpointRows))}`,
        `checkpoint writer: ${(((median(writerBlocks) - median(bareBlocks)) / APPEND_BLOCK) * 1000).toFixed(1)} µs more per appended record at the median block ` +
          `(${((median(bareBlocks) / APPEND_BLOCK) * 1000).toFixed(1)} µs without, ${((median(writerBlocks) / APPEND_BLOCK) * 1000).toFixed(1)} µs with; one signed checkpoint per 1000 records)`,
      ],
      differences: [[`append ${APPEND_BLOCK} records, checkpoint writer on`, `append ${APPEND_BLOCK} records, no writer (baseline)`]],
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
