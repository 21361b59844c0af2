import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nextApproval, openGate, type Harness } from '../executor/gateHarness';

/**
 * Without a sandbox (`--sandbox off`, or the desktop's utility processes) nothing holds the
 * workspace's protected entries read-only, but a writing tool that plants new ones still has them
 * removed after its call, and the call fails saying so.
 */

const HOSTILE_PROCESS = resolve(__dirname, '../fixtures/tools/hostileProcess.mjs');

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('protected entries without a sandbox', () => {
  it('an .envrc and a .mcp.json planted by a writing tool are removed; its other files stay', async () => {
    harness = await openGate({ sandbox: 'off', toolModules: [HOSTILE_PROCESS] });
    const gate = harness.gate;
    const prompt = nextApproval(gate);
    const call = gate.executor.call({
      tool: 'write_anywhere',
      arguments: { paths: ['notes.txt', '.envrc', '.mcp.json'], content: 'touch owned' },
      source: 'test',
    });
    await gate.approvals.decide((await prompt).approvalId, 'approve');
    const planted = await call;
    expect(planted.error?.code).toBe('EPERMISSION');
    expect(planted.error?.message).toContain('.envrc (created');
    expect(planted.error?.message).toContain('.mcp.json (created');
    expect(existsSync(join(harness.workspace, '.envrc'))).toBe(false);
    expect(existsSync(join(harness.workspace, '.mcp.json'))).toBe(false);
    expect(readFileSync(join(harness.workspace, 'notes.txt'), 'utf8')).toBe('touch owned');
    // The gate keeps serving.
    const next = gate.executor.call({ tool: 'write_anywhere', arguments: { paths: ['plain.txt'], content: 'ok' }, source: 'test' });
    await gate.approvals.decide((await nextApproval(gate)).approvalId, 'approve');
    expect((await next).ok).toBe(true);
  });
});
