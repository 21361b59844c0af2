/**
 * The explorer's answers wait for the call index without blocking the gate's thread: while the
 * index thread is still opening the index (the rebuild of a large log after a start), the gate keeps
 * turning its event loop (serving calls), and the answer comes once the index is there.
 */
import { fileURLToPath } from 'node:url';
import { BroadcastChannel } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditStore } from '../../main/audit/auditStore';
import { createAuditViews } from '../../main/audit/createAuditViews';
import type { Executor } from '../../main/executor/executor';
import type { ToolRegistry } from '../../main/registry/registry';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditPaths } from './auditFixture';

const heldWorker = fileURLToPath(new URL('../fixtures/heldIndexWorker.mjs', import.meta.url));

let home: string;
let store: AuditStore;
let channel: BroadcastChannel;
/** Resolves once the index thread started and is held before opening the index. */
let held: Promise<unknown>;

beforeEach(() => {
  home = makeTempFolder();
  channel = new BroadcastChannel('index-release');
  held = new Promise((resolve) => (channel.onmessage = resolve));
  store = new AuditStore({ ...auditPaths(home), indexWorkerFile: heldWorker });
});
afterEach(() => {
  channel.close();
  store.close();
  removeTempFolder(home);
});

/** Event-loop turns this thread makes until `promise` settles (none at all if the thread is blocked). */
async function turnsUntil(promise: Promise<unknown>): Promise<number> {
  let settled = false;
  void promise.finally(() => (settled = true));
  let turns = 0;
  while (!settled && turns < 50) {
    await new Promise((next) => setImmediate(next));
    turns++;
  }
  return turns;
}

describe('an explorer answer asked while the index is being opened', () => {
  it('lets the gate keep turning its event loop, then answers with every committed call once the index is open', async () => {
    for (let call = 0; call < 5; call++) {
      const callId = `call-${call}`;
      store.append({ callId, kind: 'invoked', payload: { tool: 'echo', source: 'mcp', arguments: { text: `hello ${call}` } } });
      store.append({ callId, kind: 'completed', payload: { status: 'completed', output: `said hello ${call}`, durationMs: 1 } });
    }
    await store.durable();
    const views = createAuditViews({ audit: store, registry: {} as ToolRegistry, executor: {} as Executor });
    const page = views.explore({ filter: {}, limit: 10, facets: false });
    // The explorer's question starts the index thread, which has not opened the index: the answer
    // waits, and the gate's thread is not blocked.
    await held;
    expect(await turnsUntil(page)).toBe(50);
    channel.postMessage('open');
    const answered = await page;
    expect(answered.rows.map((row) => row.callId)).toEqual(['call-4', 'call-3', 'call-2', 'call-1', 'call-0']);
    expect(store.callIndexCatchUp()?.kind).toBe('rebuilt');
  });
});
