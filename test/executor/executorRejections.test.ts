import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import type { Policy } from '../../main/policy/tierPolicy';
import { auditKinds, openGate, terminalCount, type Harness } from './gateHarness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function gate(options: Parameters<typeof openGate>[0] = {}) {
  harness = await openGate(options);
  return harness.gate;
}

describe('executor: calls refused before anything runs', () => {
  it('an unknown tool is ENOTFOUND, listing the tools that exist', async () => {
    const g = await gate();
    const result = await g.executor.call({ tool: 'rm_rf', arguments: {} });
    expect(result.error?.code).toBe('ENOTFOUND');
    expect(result.error?.message).toContain('no tool named "rm_rf"');
    const known = g.registry.list().map((manifest) => manifest.name);
    expect(known).toEqual(expect.arrayContaining(['echo', 'write_file', 'hang']));
    for (const name of known) expect(result.error?.message).toContain(name);
    expect(result.error?.details).toEqual({ tool: 'rm_rf', known });
    expect(auditKinds(g, result.meta.callId)).toEqual(['invoked', 'rejected']);
  });

  it('arguments breaking the schema are EVALIDATION naming the field', async () => {
    const g = await gate();
    const wrongType = await g.executor.call({ tool: 'echo', arguments: { text: 42 } });
    expect(wrongType.error?.code).toBe('EVALIDATION');
    expect(wrongType.error?.message).toMatch(/invalid arguments for echo: text:/);
    expect(wrongType.error?.details).toMatchObject({ fields: [{ field: 'text' }] });
    const extra = await g.executor.call({ tool: 'echo', arguments: { text: 'a', shell: 'rm -rf /' } });
    expect(extra.error?.code).toBe('EVALIDATION');
    expect(extra.error?.message).toContain('shell');
    expect(auditKinds(g, wrongType.meta.callId)).toEqual(['invoked', 'rejected']);
  });

  it('malformed raw JSON arguments are EVALIDATION saying they are not JSON', async () => {
    const g = await gate();
    const result = await g.executor.call({ tool: 'echo', arguments: '{"text": "unterminated' });
    expect(result.error?.code).toBe('EVALIDATION');
    expect(result.error?.message).toContain('the arguments are not valid JSON');
    expect(auditKinds(g, result.meta.callId)).toEqual(['invoked', 'rejected']);
  });

  it('a path outside the workspace is EPERMISSION: no prompt, nothing written', async () => {
    const g = await gate();
    const prompts: ApprovalRequest[] = [];
    g.events.subscribe('approvalRequested', (request) => prompts.push(request));
    const parent = dirname(harness!.workspace);
    const before = readdirSync(parent).sort();
    const result = await g.executor.call({ tool: 'write_file', arguments: { path: '../planted.txt', content: 'x' } });
    expect(result.error?.code).toBe('EPERMISSION');
    expect(result.error?.message).toContain('outside the workspace');
    expect(prompts).toEqual([]);
    expect(readdirSync(parent).sort()).toEqual(before);
    expect(auditKinds(g, result.meta.callId)).toEqual(['invoked', 'capability', 'rejected']);
    expect(g.audit.forCall(result.meta.callId)[1]!.payload).toMatchObject({ allowed: false, error: { code: 'EPERMISSION' } });
  });

  it('a DANGEROUS tool is EDENIED by policy without running', async () => {
    const g = await gate();
    const result = await g.executor.call({ tool: 'dangerous', arguments: {} });
    expect(result.error).toMatchObject({ code: 'EDENIED', details: { rule: 'tier:DANGEROUS→deny' } });
    expect(result.error?.message).toContain('denied by policy');
    expect(existsSync(join(harness!.workspace, 'dangerous-ran.txt'))).toBe(false);
    expect(auditKinds(g, result.meta.callId)).toEqual(['invoked', 'capability', 'policy', 'rejected']);
    expect(g.audit.forCall(result.meta.callId)[2]!.payload).toMatchObject({ decision: 'deny', rule: 'tier:DANGEROUS→deny' });
  });

  it('a capability the gate does not grant is EPERMISSION with the flag that would grant it', async () => {
    const g = await gate({ grants: ['fs:read'] });
    const result = await g.executor.call({ tool: 'write_file', arguments: { path: 'a.txt', content: 'x' } });
    expect(result.error?.code).toBe('EPERMISSION');
    expect(result.error?.message).toContain('--grant fs:write');
    expect(existsSync(join(harness!.workspace, 'a.txt'))).toBe(false);
    const read = await g.executor.call({ tool: 'list_dir', arguments: {} });
    expect(read.ok).toBe(true);
  });

  it('a policy that throws denies the call (fail closed) and says why', async () => {
    const broken: Policy = {
      decide() {
        throw new Error('policy file is corrupt');
      },
    };
    const g = await gate({ policy: broken });
    const result = await g.executor.call({ tool: 'echo', arguments: { text: 'hi' } });
    expect(result.error?.code).toBe('EDENIED');
    expect(result.error?.message).toContain('policy file is corrupt');
    expect(result.error?.details).toEqual({ rule: 'policy:error' });
  });

  it('every refusal ends with exactly one terminal record and the chain verifies', async () => {
    const g = await gate();
    const calls = [
      { tool: 'nope', arguments: {} },
      { tool: 'echo', arguments: '{' },
      { tool: 'echo', arguments: { text: 1 } },
      { tool: 'read_file', arguments: { path: '/etc/passwd' } },
      { tool: 'dangerous', arguments: {} },
    ];
    for (const call of calls) {
      const result = await g.executor.call(call);
      expect(result.ok).toBe(false);
      expect(terminalCount(g, result.meta.callId)).toBe(1);
      expect(auditKinds(g, result.meta.callId).at(-1)).toBe('rejected');
    }
    expect(g.audit.verify().ok).toBe(true);
  });
});
