import type { Page } from '@playwright/test';
import type { AuditRecord } from '../../shared/audit';
import type { CallDetail, CallRow, ExplorerFilter, ExplorerPage, ExplorerStats } from '../../shared/explorer';

// A million calls made up on the fly, answered on the console's WebSocket in place of a gate (no gate
// writes a million calls in a test's time): keyset pages, facet counts, one call's detail, the charts.

/** How many calls the made-up log holds. */
export const CALLS = 1_000_000;
const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const TOOLS = ['read_file', 'write_file', 'shell_exec', 'list_dir'] as const;

/** The made-up call with first record `seq` (seq 1 is the oldest; one call every 2 seconds). */
export function madeUpRow(seq: number): CallRow {
  const tool = TOOLS[seq % TOOLS.length]!;
  const outcome = seq % 17 === 0 ? 'rejected' : seq % 10 === 0 ? 'failed' : 'completed';
  const path = seq % 7 === 0 ? `docs/notes-${seq}.md` : `src/file-${seq}.ts`;
  return {
    callId: `call-${seq}`,
    seq,
    lastSeq: seq,
    time: new Date(NOW - (CALLS - seq) * 2_000).toISOString(),
    tool,
    agent: 'claude-code',
    session: `session-${Math.floor(seq / 5_000)}`,
    tier: tool === 'read_file' || tool === 'list_dir' ? 'SAFE' : 'ELEVATED',
    argsBrief: tool === 'shell_exec' ? `command=git status ${seq}` : `path=${path}`,
    decision: tool === 'write_file' ? 'ask' : 'allow',
    decider: tool === 'write_file' ? 'person' : 'rule',
    ...(tool === 'write_file' ? { decidedDetail: 'approved', waitedMs: 3_200 } : { rule: 'tier:SAFE→allow' }),
    outcome,
    ranMs: 8,
  };
}

function matches(row: CallRow, filter: ExplorerFilter): boolean {
  if (filter.tool && !filter.tool.includes(row.tool)) return false;
  if (filter.outcome && !filter.outcome.includes(row.outcome)) return false;
  if (filter.session && !filter.session.includes(row.session ?? '')) return false;
  if (filter.text && !row.argsBrief.toLowerCase().includes(filter.text.toLowerCase())) return false;
  return true;
}

/** A keyset page of the made-up calls, newest first, below `beforeSeq`. */
function madeUpPage(request: { filter?: ExplorerFilter; limit?: number; cursor?: { beforeSeq: number }; facets?: boolean }): ExplorerPage {
  const filter = request.filter ?? {};
  const limit = request.limit ?? 100;
  const rows: CallRow[] = [];
  let seq = (request.cursor?.beforeSeq ?? CALLS + 1) - 1;
  for (; seq >= 1 && rows.length < limit; seq--) {
    const row = madeUpRow(seq);
    if (matches(row, filter)) rows.push(row);
  }
  return {
    rows,
    ...(seq >= 1 && rows.length === limit ? { next: { beforeSeq: rows.at(-1)!.seq } } : {}),
    ...(request.facets
      ? {
          total: filter.tool ? filter.tool.length * (CALLS / TOOLS.length) : CALLS,
          facets: {
            tool: TOOLS.map((tool) => ({ value: tool, count: CALLS / TOOLS.length })),
            outcome: [
              { value: 'completed', count: 841_177 },
              { value: 'failed', count: 100_000 },
              { value: 'rejected', count: 58_823 },
            ],
            decider: [
              { value: 'rule', count: 750_000 },
              { value: 'person', count: 250_000 },
            ],
          },
        }
      : {}),
    tookMs: 3,
  };
}

function madeUpDetail(callId: string): CallDetail {
  const row = madeUpRow(Number(callId.replace('call-', '')));
  const at = (ms: number) => new Date(Date.parse(row.time) + ms).toISOString();
  const kinds: Array<[AuditRecord['kind'], number, unknown]> = [
    ['invoked', 0, { tool: row.tool, arguments: { path: row.argsBrief.replace('path=', ''), content: 'hello\n' } }],
    ['policy', 2, { decision: 'ask', rule: 'tier:ELEVATED→ask', reason: 'writes need a person' }],
    ['approval-requested', 4, { preview: { kind: 'diff', path: 'docs/notes.md', added: 1, removed: 1, unified: '@@ -1 +1 @@\n-old line\n+hello' } }],
    ['approval-decided', 3_204, { outcome: 'approved', reason: 'fine' }],
    ['started', 3_205, {}],
    ['completed', 3_213, { responseHash: 'c'.repeat(64), output: { written: 6 } }],
  ];
  const records = kinds.map(([kind, ms, payload], index) => ({
    seq: row.seq + index,
    callId,
    kind,
    time: at(ms),
    payload,
    prevHash: 'a'.repeat(64),
    hash: 'b'.repeat(64),
  }));
  return { row, records, logSize: CALLS * 6, replay: { possible: false, reason: 'write_file changes files' } };
}

const STATS: ExplorerStats = {
  overTime: { bucketMs: 3_600_000, buckets: [{ start: new Date(NOW - 3_600_000).toISOString(), counts: { completed: 1500, failed: 180 } }] },
  waits: [{ upToMs: 5_000, count: 250_000 }],
  topTools: TOOLS.map((tool) => ({ tool, count: 250_000 })),
  denialsByRule: [{ rule: 'person', count: 58_823 }],
  sessions: [{ session: 'session-199', agent: 'claude-code', first: new Date(NOW - 10_000_000).toISOString(), last: new Date(NOW).toISOString(), calls: 5000, failed: 500, denied: 294 }],
  tookMs: 5,
};

/** What the spec sees of the made-up gate: the explorer requests the console made, and a way to push events. */
export interface MadeUpGate {
  readonly seen: Array<{ method: string; params: Record<string, unknown> }>;
  /** Pushes a bridge event to the console (e.g. auditAppended). */
  push(event: string, payload: unknown): void;
}

/** Answers the console's WebSocket: the snapshots empty, the explorer from the made-up calls. */
export async function answerWithMadeUpCalls(page: Page): Promise<MadeUpGate> {
  const seen: Array<{ method: string; params: Record<string, unknown> }> = [];
  let push: MadeUpGate['push'] = () => {};
  await page.routeWebSocket(/\/bridge$/, (socket) => {
    push = (event, payload) => socket.send(JSON.stringify({ type: 'event', event, payload }));
    socket.onMessage((message) => {
      const { id, method, params } = JSON.parse(String(message)) as { id: number; method: string; params: Record<string, unknown> };
      const answers: Record<string, () => unknown> = {
        getInfo: () => ({ version: '0.1.0', workspace: '/ws', approvalTimeoutMs: 300_000, sandbox: { kind: 'bubblewrap' } }),
        listTools: () => [],
        listCalls: () => [],
        listApprovals: () => [],
        listAudit: () => [],
        listPermissions: () => [],
        verifyAudit: () => ({ ok: true, records: CALLS * 6 }),
        exploreCalls: () => madeUpPage(params),
        explorerStats: () => STATS,
        callDetail: () => madeUpDetail(String(params.callId)),
        checkpointStatus: () => ({}),
      };
      if (method in answers && method !== 'getInfo' && !method.startsWith('list') && method !== 'verifyAudit') seen.push({ method, params });
      const answer = answers[method];
      const reply = answer ? { ok: true, value: answer() } : { ok: false, error: { code: 'EUNAVAILABLE', message: `no answer for ${method}` } };
      socket.send(JSON.stringify({ type: 'reply', id, reply }));
    });
  });
  return { seen, push: (event, payload) => push(event, payload) };
}

