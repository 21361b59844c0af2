import type { ApprovalOutcome, ApprovalRequest } from '../../shared/approval';
import type { AuditRecord } from '../../shared/audit';
import type { CallSnapshot } from '../../shared/call';
import type { ToolStatus } from '../../shared/health';
import { DEFAULT_BOUNDS } from '../../shared/manifest';
import type { KeyValueStore } from '../../renderer/store/sessionStore';

/** A call snapshot with sensible defaults. */
export function call(callId: string, overrides: Partial<CallSnapshot> = {}): CallSnapshot {
  return {
    callId,
    tool: 'read_file',
    arguments: { path: 'README.md' },
    source: 'test',
    status: 'checking',
    step: 'lookup',
    startedAt: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** A pending prompt with a diff preview. */
export function approval(approvalId: string, overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    approvalId,
    callId: `call-${approvalId}`,
    tool: 'write_file',
    toolVersion: '1.0.0',
    tier: 'ELEVATED',
    rule: 'ask-for-writes',
    arguments: { path: 'a.txt', content: 'new\n' },
    preview: { kind: 'diff', path: 'a.txt', before: 'old\n', after: 'new\n', unified: '@@ -1 +1 @@\n-old\n+new\n', exists: true },
    bindingHash: 'b'.repeat(64),
    requestedAt: '2025-01-01T00:00:00.000Z',
    expiresAt: '2025-01-01T00:01:00.000Z',
    ...overrides,
  };
}

/** How a prompt ended. */
export function outcome(approvalId: string, result: ApprovalOutcome['outcome'] = 'approved'): ApprovalOutcome {
  return { approvalId, callId: `call-${approvalId}`, outcome: result, decidedAt: '2025-01-01T00:00:30.000Z' };
}

/** An audit record. */
export function auditRecord(seq: number): AuditRecord {
  return {
    seq,
    callId: 'call-1',
    kind: 'invoked',
    time: '2025-01-01T00:00:00.000Z',
    payload: { tool: 'read_file' },
    prevHash: '0'.repeat(64),
    hash: String(seq).padStart(64, 'a'),
  };
}

/** A healthy, SAFE tool as the Tools view lists it. */
export function toolStatus(name: string, overrides: Partial<ToolStatus> = {}): ToolStatus {
  return {
    name,
    version: '1.0.0',
    description: `The ${name} tool.`,
    tier: 'SAFE',
    effectiveTier: 'SAFE',
    sideEffects: [],
    capabilities: [],
    bounds: DEFAULT_BOUNDS,
    sandbox: 'bubblewrap',
    health: { state: 'healthy', checkedAt: '2025-01-01T00:00:00.000Z' },
    available: true,
    ...overrides,
  };
}

/** sessionStorage as a Map (its items are exposed for assertions). */
export function memoryStore(): KeyValueStore & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}
