import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolStatusSchema, type ToolHealth } from '../../shared/health';
import { ToolStatusBoard } from '../../main/health/toolStatusBoard';
import { createConsoleBackend, type ConsoleSources } from '../../main/gate/consoleHandlers';
import { dispatchBridgeRequest } from '../../main/bridge/dispatch';
import { GateEvents } from '../../main/gate/gateEvents';
import { defineTool } from '../../main/registry/defineTool';
import { ToolRegistry } from '../../main/registry/registry';

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  const base = { version: '1.0.0', input: z.object({}), output: z.object({}), execute: () => ({}) };
  tools.register(defineTool({ ...base, name: 'write_file', description: 'Writes a file.', tier: 'ELEVATED', sideEffects: ['FsWrite'], capabilities: ['fs:write'] }));
  tools.register(defineTool({ ...base, name: 'echo', description: 'Echoes.', tier: 'SAFE', bounds: { timeoutMs: 5_000 } }));
  return tools;
}

const HEALTH: Record<string, ToolHealth> = {
  echo: { state: 'healthy', checkedAt: '2025-01-01T00:00:00.000Z' },
  write_file: { state: 'unhealthy', message: 'disk full', checkedAt: '2025-01-01T00:00:00.000Z' },
};
const health = {
  status: (name: string) => HEALTH[name] ?? { state: 'unknown' as const },
  isAvailable: (name: string) => HEALTH[name]?.state !== 'unhealthy',
};

describe('ToolStatusBoard', () => {
  it('lists every tool by name with its manifest facts, health and availability, valid against the contract', () => {
    const board = new ToolStatusBoard({ registry: registry(), health, sandbox: { kind: 'bubblewrap' } });
    const list = board.list();
    expect(list.map((status) => status.name)).toEqual(['echo', 'write_file']);
    for (const status of list) expect(ToolStatusSchema.parse(status)).toEqual(status);
    expect(list[1]).toMatchObject({
      tier: 'ELEVATED',
      effectiveTier: 'ELEVATED',
      sideEffects: ['FsWrite'],
      capabilities: ['fs:write'],
      sandbox: 'bubblewrap',
      health: { state: 'unhealthy', message: 'disk full' },
      available: false,
    });
    expect(list[1]).not.toHaveProperty('tierRaisedBecause');
    expect(list[0]).toMatchObject({ bounds: { timeoutMs: 5_000 }, available: true });
  });

  it('shows the effective tier policy applies, and why it is higher', () => {
    const board = new ToolStatusBoard({
      registry: registry(),
      health,
      sandbox: { kind: 'none', reason: 'bwrap is not installed' },
      effectiveTier: (manifest) => (manifest.name === 'echo' ? 'STANDARD' : { tier: 'RESTRICTED', raisedBecause: 'writes need a sandbox' }),
    });
    const [echo, writer] = board.list();
    expect(echo).toMatchObject({
      tier: 'SAFE',
      effectiveTier: 'STANDARD',
      tierRaisedBecause: 'there is no OS sandbox (bubblewrap) on this machine: bwrap is not installed',
      sandbox: 'none',
    });
    expect(writer).toMatchObject({ effectiveTier: 'RESTRICTED', tierRaisedBecause: 'writes need a sandbox' });
  });

  it('hands the console only the kind of sandbox and the reason, not how it is run', () => {
    const sandbox = { kind: 'bubblewrap' as const, command: '/usr/bin/bwrap', version: '0.8.0' };
    const board = new ToolStatusBoard({ registry: registry(), health, sandbox });
    expect(board.sandbox).toEqual({ kind: 'bubblewrap' });
  });

  it('treats a tool whose effective tier cannot be worked out as DANGEROUS, saying why', () => {
    const board = new ToolStatusBoard({
      registry: registry(),
      health,
      sandbox: { kind: 'bubblewrap' },
      effectiveTier: () => {
        throw new Error('policy file unreadable');
      },
    });
    expect(board.list()[0]).toMatchObject({
      effectiveTier: 'DANGEROUS',
      tierRaisedBecause: expect.stringContaining('policy file unreadable'),
    });
  });
});

describe('the console backend', () => {
  function backend(toolStatus?: ToolStatusBoard) {
    const tools = registry();
    const sources = {
      registry: tools,
      events: new GateEvents(),
      info: () => ({ workspace: '/ws', approvalTimeoutMs: 60_000 }),
      ...(toolStatus ? { toolStatus } : {}),
    } as unknown as ConsoleSources;
    return createConsoleBackend(sources);
  }

  it('answers listTools from the board and tells getInfo its sandbox fact', async () => {
    const board = new ToolStatusBoard({ registry: registry(), health, sandbox: { kind: 'none', reason: 'bwrap is not installed' } });
    const gate = backend(board);
    await expect(dispatchBridgeRequest(gate, 'getInfo', {})).resolves.toMatchObject({
      ok: true,
      value: { workspace: '/ws', sandbox: { kind: 'none', reason: 'bwrap is not installed' } },
    });
    const tools = await dispatchBridgeRequest(gate, 'listTools', {});
    expect(tools).toMatchObject({ ok: true, value: [{ name: 'echo', available: true }, { name: 'write_file', available: false }] });
  });

  it('without a board, lists declared tiers with health unknown and claims no sandbox', async () => {
    const gate = backend();
    await expect(dispatchBridgeRequest(gate, 'getInfo', {})).resolves.toMatchObject({ ok: true, value: { sandbox: { kind: 'none' } } });
    await expect(dispatchBridgeRequest(gate, 'listTools', {})).resolves.toMatchObject({
      ok: true,
      value: [
        { name: 'echo', health: { state: 'unknown' }, available: true, sandbox: 'none' },
        { name: 'write_file', tier: 'ELEVATED', effectiveTier: 'ELEVATED', available: true },
      ],
    });
  });
});
