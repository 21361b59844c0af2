import { expect, test } from '@playwright/test';
import type { CallSnapshot } from '../shared/call';
import { ConsolePage } from './pages/ConsolePage';
import { startServedGate, type ServedGate } from './support/servedGate';

// Live given 100,000 calls: it keeps the newest 10,000 (the rest are in the Audit view), and only the
// rows in view are drawn, so loading, scrolling and taking more calls stay quick. The console is the
// one `toolgate serve` serves; its WebSocket is answered by the spec (no gate could make 100,000
// calls in a test's time). The numbers measured are printed.

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

const START = Date.parse('2026-01-01T12:00:00.000Z');

function snapshot(index: number): CallSnapshot {
  const startedAt = new Date(START - index * 1000).toISOString();
  return {
    callId: `call-${index}`,
    tool: index % 3 === 0 ? 'write_file' : 'read_file',
    tier: index % 3 === 0 ? 'ELEVATED' : 'SAFE',
    arguments: { path: `src/file-${index}.ts` },
    source: 'mcp',
    agentSession: 'f00dfeed-0000-4000-8000-000000000000',
    agent: { client: 'claude-code', version: '2.1.0', sessionStartedAt: new Date(START - CALLS * 1000).toISOString() },
    status: 'completed',
    step: 'completed',
    startedAt,
    endedAt: startedAt,
    durationMs: 12,
    ...(index % 3 === 0 ? { waitedMs: 4_000 } : {}),
    ranMs: 9,
    data: { bytes: index },
  };
}

/** The gate's answers, as the console asks for them. */
function answer(method: string, calls: CallSnapshot[]): unknown {
  const answers: Record<string, unknown> = {
    getInfo: { version: '0.1.0', workspace: '/ws', approvalTimeoutMs: 300_000, sandbox: { kind: 'bubblewrap' } },
    listTools: [],
    listCalls: calls,
    listApprovals: [],
    listAudit: [],
    verifyAudit: { ok: true, records: 0 },
    listPermissions: [],
  };
  return answers[method];
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
  // Made-up calls by the hundred thousand: on a CI machine shared with the unit tests this took over a minute.
  test.setTimeout(180_000);
  const calls = Array.from({ length: CALLS }, (_, index) => snapshot(index));
  let push: (event: string, payload: unknown) => void = () => {};
  let callsAskedAt = 0;
  await page.routeWebSocket(/\/bridge$/, (socket) => {
    push = (event, payload) => socket.send(JSON.stringify({ type: 'event', event, payload }));
    socket.onMessage((message) => {
      const { id, method } = JSON.parse(String(message)) as { id: number; method: string };
      if (method === 'listCalls') callsAskedAt = Date.now();
      socket.send(JSON.stringify({ type: 'reply', id, reply: { ok: true, value: answer(method, calls) } }));
    });
  });
  const consolePage = new ConsolePage(page);
  await consolePage.open(gate.consoleUrl);
  const { live } = consolePage;

  await expect(live.rowFor('call-0')).toBeVisible();
  const loadMs = Date.now() - callsAskedAt;
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
  for (let index = 1; index <= 1_000; index++) push('callUpdated', snapshot(-index));
  await expect(live.rowFor('call--1000')).toBeVisible();
  const newCallsMs = Date.now() - pushedAt;
  expect(await live.rows().count()).toBeLessThan(80);

  console.log(
    `Live given ${CALLS} calls (${KEPT} kept): first rows ${loadMs} ms after the list was asked for (transfer and parse included); ` +
      `${drawn} rows drawn; jump to the middle ${middleMs.toFixed(1)} ms, to the end ${endMs.toFixed(1)} ms; ` +
      `1,000 new calls on top in ${newCallsMs} ms`,
  );
});
