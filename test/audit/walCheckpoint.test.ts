/**
 * The gate's thread commits records and nothing else: the index thread copies the audit log's WAL
 * back into its database after each fold, so when the gate goes quiet between bursts of calls (an
 * agent thinking) the gate's next commit starts the WAL over, and the gate never reaches its own
 * automatic checkpoint (past 1,000 pages of WAL, a write-back and two fsyncs on its thread).
 */
import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { AuditStore } from '../../main/audit/auditStore';
import { waitUntil } from '../fixtures/processes';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditPaths } from './auditFixture';

/** SQLite's page size (the default) and the WAL's frame: a page and its 24-byte header. */
const FRAME_BYTES = 4096 + 24;
/** Where SQLite's automatic checkpoint starts on the gate's connection (its default, in pages). */
const GATE_CHECKPOINT_PAGES = 1000;
/** Bursts of calls, each about 150 pages of WAL: 1,500 in all, past the gate's threshold. */
const BURSTS = 10;
const CALLS_PER_BURST = 150;

/**
 * The WAL's last frame and how far a checkpoint has copied, from its shared-memory index (the
 * documented wal-index layout, https://www.sqlite.org/walformat.html: mxFrame at byte 16 of the
 * header, nBackfill at byte 96, in the machine's byte order).
 */
function walProgress(home: string): { frames: number; copied: number } {
  const shm = readFileSync(`${auditPaths(home).path}-shm`);
  return { frames: shm.readUInt32LE(16), copied: shm.readUInt32LE(96) };
}

/** Commits a burst of calls, each with an output of a few KB, as an agent's busy minute would. */
async function burst(store: AuditStore, number: number): Promise<void> {
  for (let call = 0; call < CALLS_PER_BURST; call++) {
    const callId = `burst-${number}-call-${call}`;
    store.append({ callId, kind: 'invoked', payload: { tool: 'read_file', source: 'mcp', arguments: { path: `notes/${call}.md` } } });
    store.append({ callId, kind: 'completed', payload: { status: 'completed', output: `${number}:${call} `.repeat(600), durationMs: 1 } });
  }
  await store.durable();
}

describe("the audit log's WAL", () => {
  it('is copied back by the index thread while the gate is quiet, so it starts over and never grows to the gate\'s own checkpoint', async () => {
    const home = makeTempFolder();
    const store = new AuditStore(auditPaths(home));
    onTestFinished(() => {
      store.close();
      removeTempFolder(home);
    });
    let written = 0;
    for (let number = 0; number < BURSTS; number++) {
      const before = walProgress(home).frames;
      await burst(store, number);
      const { frames } = walProgress(home);
      // Each burst starts at the WAL's start once the last was copied back (or appends to it).
      written += frames > before ? frames - before : frames;
      // The gate goes quiet: the index thread folds the burst, then copies every frame back.
      await store.callIndexReady();
      await waitUntil(() => {
        const { frames: now, copied } = walProgress(home);
        return copied === now;
      }, `the index thread to copy burst ${number} back`);
    }
    // The bursts wrote more than the gate's threshold, in a WAL that never held that much.
    expect(written).toBeGreaterThan(GATE_CHECKPOINT_PAGES);
    expect(statSync(`${auditPaths(home).path}-wal`).size).toBeLessThan(GATE_CHECKPOINT_PAGES * FRAME_BYTES / 2);
    // Every record is there and the chain holds.
    expect(store.verify()).toMatchObject({ ok: true, records: BURSTS * CALLS_PER_BURST * 2 });
  });
});
