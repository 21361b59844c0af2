/**
 * The chain walked in worker threads (as `toolgate audit verify` does for a large log, with the
 * built out/main/chainWorker.js) gives the one-thread answer on an intact log, and hands every
 * finding back to the one-thread walk, which names it: never a different verdict.
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditStore } from '../../main/audit/auditStore';
import { walkChainInParallel } from '../../main/audit/parallelChain';
import { builtAssets } from '../../main/state/paths';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditPaths, tamper, writeRecords } from './auditFixture';

let home: string;

beforeEach(() => {
  home = makeTempFolder();
  writeRecords(home, 103);
});
afterEach(() => removeTempFolder(home));

async function verifyInThreads(threads: number) {
  const store = new AuditStore({ ...auditPaths(home), readonly: true });
  try {
    const chain = await walkChainInParallel({ path: auditPaths(home).path, lastSeq: store.lastSeq(), workerFile: builtAssets().chainWorker, minRecords: 1, threads });
    return { chain, report: store.verify(chain), alone: store.verify() };
  } finally {
    store.close();
  }
}

describe('the chain walked in worker threads', () => {
  it.each([2, 3, 4])('verifies an intact log in %i threads as one thread does', async (threads) => {
    const { chain, report, alone } = await verifyInThreads(threads);
    expect(chain).toMatchObject({ ok: true, records: 103, lastSeq: 103 });
    expect(report).toEqual(alone);
    expect(report).toMatchObject({ ok: true, records: 103 });
  });

  it('leaves an edited record to the one-thread walk, which names it', async () => {
    tamper(home, (db) => db.prepare("UPDATE audit SET payload = '{\"step\":1}' WHERE seq = 80").run());
    const result = await verifyInThreads(2);
    expect(result.chain).toBeUndefined();
    expect(result.report).toMatchObject({ ok: false, firstBadSeq: 80 });
  });

  it('leaves a record missing where the second stretch begins to the one-thread walk', async () => {
    // 103 records in 2 threads: the second stretch starts at 53.
    tamper(home, (db) => db.prepare('DELETE FROM audit WHERE seq = 53').run());
    const result = await verifyInThreads(2);
    expect(result.chain).toBeUndefined();
    expect(result.report).toMatchObject({ ok: false, firstBadSeq: 53, reason: expect.stringContaining('missing') });
  });

  it('still checks the head anchor after a clean walk', async () => {
    rmSync(auditPaths(home).headPath);
    const { chain, report } = await verifyInThreads(2);
    expect(chain).toMatchObject({ ok: true, records: 103 });
    expect(report).toMatchObject({ ok: false, problem: 'anchor-missing' });
  });

  it('carries the walk on over records the gate wrote while the threads walked, and checks them too', async () => {
    // The console's Verify runs while the gate keeps appending: the anchor then stands past the walk's end.
    const store = new AuditStore(auditPaths(home));
    try {
      const chain = await walkChainInParallel({ path: auditPaths(home).path, lastSeq: store.lastSeq(), workerFile: builtAssets().chainWorker, minRecords: 1, threads: 2 });
      for (let i = 0; i < 7; i++) store.append({ callId: 'late', kind: 'invoked', payload: { i } });
      expect(store.verify(chain)).toMatchObject({ ok: true, records: 110 });
      tamper(home, (db) => db.prepare("UPDATE audit SET payload = '{\"i\":99}' WHERE seq = 106").run());
      expect(store.verify(chain)).toMatchObject({ ok: false, firstBadSeq: 106, problem: 'chain' });
    } finally {
      store.close();
    }
  });
});
