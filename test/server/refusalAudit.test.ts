import { describe, expect, it } from 'vitest';
import type { AuditKind } from '../../shared/audit';
import { RefusalAudit } from '../../main/server/refusalAudit';

function sink() {
  const records: Array<{ callId: string; kind: AuditKind; payload: unknown }> = [];
  return { records, append: (entry: { callId: string; kind: AuditKind; payload: unknown }) => records.push(entry) };
}

describe('RefusalAudit', () => {
  it('writes each refusal as a rejected record with the step and error', () => {
    const audit = sink();
    new RefusalAudit(audit).record({ step: 'origin', code: 'EPERMISSION', message: 'requests from the origin "http://evil.example" are refused', surface: 'mcp', origin: 'http://evil.example' });
    expect(audit.records).toHaveLength(1);
    expect(audit.records[0]).toMatchObject({
      kind: 'rejected',
      payload: { step: 'origin', surface: 'mcp', origin: 'http://evil.example', error: { code: 'EPERMISSION' } },
    });
  });

  it('writes at most its budget a minute and counts the rest into the next record', () => {
    const audit = sink();
    let now = 0;
    const refusals = new RefusalAudit(audit, 3, () => now);
    for (let i = 0; i < 10; i++) refusals.record({ step: 'auth', code: 'EPERMISSION', message: 'bad token', surface: 'mcp' });
    expect(audit.records).toHaveLength(3);
    now = 60_000;
    refusals.record({ step: 'auth', code: 'EPERMISSION', message: 'bad token', surface: 'mcp' });
    expect(audit.records).toHaveLength(4);
    expect(audit.records[3]!.payload).toMatchObject({ refusalsNotRecorded: 7 });
  });

  it('survives a closed log', () => {
    const refusals = new RefusalAudit({
      append: () => {
        throw new Error('the audit log is closed or read-only');
      },
    });
    expect(() => refusals.record({ step: 'host', code: 'EPERMISSION', message: 'x', surface: 'console' })).not.toThrow();
  });
});
