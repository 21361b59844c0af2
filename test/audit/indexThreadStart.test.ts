/**
 * The explorer's index thread starts when it is needed: a gate that is started, makes a call and is
 * stopped within seconds never loads it (and still leaves the index current), one opened over a log
 * its index is behind starts it at once, and a gate that keeps running starts it a moment after its
 * first commit, without anyone reading the index.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditStore } from '../../main/audit/auditStore';
import { indexFileWatermark } from '../../main/audit/indexFile';
import { indexPathFor } from '../../main/audit/indexThread';
import { openDatabase } from '../../main/audit/sqlite';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { waitUntil } from '../fixtures/processes';
import { auditPaths } from './auditFixture';

const countedWorker = fileURLToPath(new URL('../fixtures/countedIndexWorker.mjs', import.meta.url));

let home: string;
beforeEach(() => {
  home = makeTempFolder();
});
afterEach(() => removeTempFolder(home));

/** How many times an index thread started on the log in `home`. */
function starts(): number {
  const mark = `${auditPaths(home).path}.index-thread-runs`;
  return existsSync(mark) ? readFileSync(mark, 'utf8').trim().split('\n').length : 0;
}

/** Commits one call's two records. */
async function oneCall(store: AuditStore, callId: string): Promise<void> {
  store.append({ callId, kind: 'invoked', payload: { tool: 'echo', source: 'mcp', arguments: { text: callId } } });
  store.append({ callId, kind: 'completed', payload: { status: 'completed', output: callId, durationMs: 1 } });
  await store.durable();
}

describe("the explorer's index thread", () => {
  it('is never started by a gate stopped soon after its calls with nothing reading the index, and the index is current all the same', async () => {
    const store = new AuditStore({ ...auditPaths(home), indexWorkerFile: countedWorker });
    await oneCall(store, 'call-1');
    await oneCall(store, 'call-2');
    const end = store.lastSeq();
    store.close();
    expect(starts()).toBe(0);
    expect(indexFileWatermark(indexPathFor(auditPaths(home).path))).toBe(end);

    // The next gate finds the index current: it has no reason to start the thread either, and its explorer answers with both calls.
    const reopened = new AuditStore({ ...auditPaths(home), indexWorkerFile: countedWorker });
    try {
      expect(starts()).toBe(0);
      await reopened.callIndexReady();
      expect(starts()).toBe(1);
      expect(reopened.callIndex().behind()).toBe(0);
      expect(reopened.callIndexCatchUp()?.kind).toBe('current');
    } finally {
      reopened.close();
    }
  });

  it('is started at once by a gate opened over a log its index is behind (a gate killed before folding), without a reader', async () => {
    // A gate whose index thread could not run: its records are in the log, not in the index.
    const killed = new AuditStore({ ...auditPaths(home), indexWorkerFile: '/nonexistent/indexWorker.js' });
    await oneCall(killed, 'call-1');
    const end = killed.lastSeq();
    killed.close();
    expect(indexFileWatermark(indexPathFor(auditPaths(home).path))).toBe(0);

    const store = new AuditStore({ ...auditPaths(home), indexWorkerFile: countedWorker });
    try {
      await waitUntil(() => starts() === 1, 'the index thread to start');
      await waitUntil(() => indexFileWatermark(indexPathFor(auditPaths(home).path)) === end, 'the index to catch up');
    } finally {
      store.close();
    }
  });

  it('is started at once by a gate opened over a log shorter than its index (an index of another log), which it rebuilds', async () => {
    const first = new AuditStore({ ...auditPaths(home), indexWorkerFile: countedWorker });
    await oneCall(first, 'call-1');
    first.close();
    const indexPath = indexPathFor(auditPaths(home).path);
    const index = openDatabase(indexPath);
    index.exec("UPDATE calls_index_state SET value = 1000 WHERE key = 'watermark'");
    index.close();

    const store = new AuditStore({ ...auditPaths(home), indexWorkerFile: countedWorker });
    try {
      await waitUntil(() => starts() === 1, 'the index thread to start');
      expect(store.callIndexCatchUp()?.kind).toBe('rebuilt');
      expect(indexFileWatermark(indexPath)).toBe(store.lastSeq());
    } finally {
      store.close();
    }
  });

  it('is started a moment after the first commit of a gate that keeps running, and folds its calls without a reader', async () => {
    const store = new AuditStore({ ...auditPaths(home), indexWorkerFile: countedWorker, indexStartAfterCommitMs: 50 });
    try {
      expect(starts()).toBe(0);
      await oneCall(store, 'call-1');
      await waitUntil(() => starts() === 1, 'the index thread to start');
      await oneCall(store, 'call-2');
      await waitUntil(() => indexFileWatermark(indexPathFor(auditPaths(home).path)) === store.lastSeq(), 'the index to fold both calls');
      expect(starts()).toBe(1);
    } finally {
      store.close();
    }
  });
});
