import { expect, test } from '@playwright/test';
import type { CallSnapshot } from '../shared/call';
import { ConsolePage } from './pages/ConsolePage';
import { startServedGate, type ServedGate } from './support/servedGate';

// Live given 100,000 calls: it keeps the newest 10,000 (the rest are in the Audit view), and only the
// rows in view are drawn, so loading, scrolling and taking more calls stay quick. The console is the
// one `toolgate serve` serves; its bridge is answered in the page by a stand-in for the gate's
// WebSocket (no gate could make 100,000 calls in a test's time, and relaying a 43 MB answer through
// the test runner took it 24 s, which measured the relay rather than the console). The numbers
// measured are printed.

const CALLS = 100_000;
/** How many Live keeps (CALLS_CAP). */
const KEPT = 10_000;
let gate: ServedGate;

test.beforeEach(async () => {
  gate = await startServedGate();
});

test.afterEach(async () => {
  await gate.stop();
});

/** What the page's stand-in for the gate exposes to the spec. */
interface StandIn {
  /** When the console asked for the calls (performance.now() in the page). */
  callsAskedAt?: number;
  /** Sends `count` new calls as events, newest last: call--1 … call--count. */
  push(count: number): void;
}

/**
 * Runs in the page before the console: its WebSocket is a stand-in that answers the bridge's
 * requests as the gate would, with `calls` made-up calls (call-0 the newest, a second apart).
 */
function installGateStandIn(calls: number): void {
  const START = Date.parse('2026-01-01T12:00:00.000Z');
  const snapshot = (index: number): CallSnapshot => {
    const startedAt = new Date(START - index * 1000).toISOString();
    return {
      callId: `call-${index}`,
      tool: index % 3 === 0 ? 'write_file' : 'read_file',
      tier: index % 3 === 0 ? 'ELEVATED' : 'SAFE',
      arguments: { path: `src/file-${index}.ts` },
      source: 'mcp',
      agentSession: 'f00dfeed-0000-4000-8000-000000000000',
      agent: { client: 'claude-code', version: '2.1.0', sessionStartedAt: new Date(START - calls * 1000).toISOString() },
      status: 'completed',
      step: 'completed',
      startedAt,
      endedAt: startedAt,
      durationMs: 12,
      ...(index % 3 === 0 ? { waitedMs: 4_000 } : {}),
      ranMs: 9,
      data: { bytes: index },
    };
  };
  const answers: Record<string, () => unknown> = {
    getInfo: () => ({ version: '0.1.0', workspace: '/ws', approvalTimeoutMs: 300_000, sandbox: { kind: 'bubblewrap' } }),
    listTools: () => [],
    listCalls: () => Array.from({ length: calls }, (_, index) => snapshot(index)),
    listApprovals: () => [],
    listAudit: () => [],
    verifyAudit: () => ({ ok: true, records: 0 }),
    listPermissions: () => [],
  };
  type Listener = (event: { data?: unknown; code?: number; reason?: string }) => void;
  const standIn: StandIn = { push: () => {} };
  (globalThis as unknown as { gateStandIn: StandIn }).gateStandIn = standIn;
  class GateStandInSocket {
    readyState = 0;
    private readonly listeners = new Map<string, Listener[]>();
    constructor() {
      setTimeout(() => {
        this.readyState = 1;
        this.emit('open', {});
      });
      standIn.push = (count) => {
        for (let index = 1; index <= count; index++) this.emit('message', { data: JSON.stringify({ type: 'event', event: 'callUpdated', payload: snapshot(-index) }) });
      };
    }
    addEventListener(type: string, listener: Listener): void {
      this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
    }
    send(data: string): void {
      const { id, method } = JSON.parse(data) as { id: number; method: string };
      if (method === 'listCalls') standIn.callsAskedAt = performance.now();
      const value = answers[method]?.();
      setTimeout(() => this.emit('message', { data: JSON.stringify({ type: 'reply', id, reply: { ok: true, value } }) }));
    }
    close(): void {
      this.readyState = 3;
    }
    private emit(type: string, event: { data?: unknown }): void {
      for (const listener of this.listeners.get(type) ?? []) listener(event);
    }
  }
  (globalThis as unknown as { WebSocket: unknown }).WebSocket = GateStandInSocket;
}

/** Milliseconds until two frames after `scrollTop` is set (the rows for the new place are drawn by then). */
async function scrollAndTime(consolePage: ConsolePage, to: 'middle' | 'end'): Promise<number> {
  return consolePage.page.evaluate(`(async () => {
    const list = document.querySelector('[data-testid="call-list"]');
    const start = performance.now();
    list.scrollTop = ${to === 'end' ? 'list.scrollHeight' : 'list.scrollHeight / 2'};
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    return performance.now() - start;
  })()`);
}

test('100,000 calls: the newest 10,000 are kept, a screenful of rows is drawn however far it scrolls and however many calls arrive', async ({ page }) => {
  await page.addInitScript(installGateStandIn, CALLS);
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const { live } = consolePage;

  await expect(live.rowFor('call-0')).toBeVisible();
  const loadMs = await page.evaluate('performance.now() - window.gateStandIn.callsAskedAt');
  const drawn = await live.rows().count();
  expect(drawn).toBeGreaterThan(5);
  expect(drawn).toBeLessThan(80);

  const middleMs = await scrollAndTime(consolePage, 'middle');
  await expect(live.rows().first()).not.toHaveAttribute('data-call-id', 'call-0');
  const endMs = await scrollAndTime(consolePage, 'end');
  await expect(live.rowFor(`call-${KEPT - 1}`)).toBeVisible();
  await expect(live.rowFor(`call-${KEPT}`)).toHaveCount(0);
  await expect(page.getByTestId('live-cap-note')).toContainText('every older one is in the Audit view');
  expect(await live.rows().count()).toBeLessThan(80);

  // A thousand new calls arrive while the list is full: they go on top, the oldest drop off.
  await page.evaluate(`document.querySelector('[data-testid="call-list"]').scrollTop = 0`);
  const pushedAt = Date.now();
  await page.evaluate('window.gateStandIn.push(1000)');
  await expect(live.rowFor('call--1000')).toBeVisible();
  const newCallsMs = Date.now() - pushedAt;
  expect(await live.rows().count()).toBeLessThan(80);

  console.log(
    `Live given ${CALLS} calls (${KEPT} kept): first rows ${Number(loadMs).toFixed(0)} ms after the list was asked for (made, sent and parsed in the page); ` +
      `${drawn} rows drawn; jump to the middle ${middleMs.toFixed(1)} ms, to the end ${endMs.toFixed(1)} ms; ` +
      `1,000 new calls on top in ${newCallsMs} ms`,
  );
});
