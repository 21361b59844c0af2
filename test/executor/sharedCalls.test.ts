import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallLimits } from '../../main/hosts/toolCall';
import { nextApproval, openGate, type Harness } from './gateHarness';

// The gate lets calls of its own Pure tools share a tool process (CallLimits.mayShare): through the
// real gate they must each still get their own answer and their own record, and no call that reads
// files, changes anything, reaches the network or runs a module's code may share.

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('executor: calls that share a tool process', () => {
  it('with one tool process, reads from many agents at once each get their own answer and their own record', async () => {
    harness = await openGate({ grants: ['fs:read'] });
    const { gate, workspace } = harness;
    for (let i = 0; i < 6; i++) writeFileSync(join(workspace, `note-${i}.txt`), `note number ${i}\n`);
    const asked = Array.from({ length: 18 }, (_, i) =>
      i % 3 === 0
        ? { tool: 'echo', arguments: { text: `echo ${i}` }, expect: { text: `echo ${i}` } }
        : i % 3 === 1
          ? { tool: 'read_file', arguments: { path: `note-${i % 6}.txt` }, expect: { content: `note number ${i % 6}\n` } }
          : { tool: 'calculator', arguments: { expression: `${i} * 7` }, expect: { value: i * 7 } },
    );
    const results = await Promise.all(asked.map(({ tool, arguments: args }) => gate.executor.call({ tool, arguments: args })));
    for (const [i, result] of results.entries()) {
      expect(result.ok, `${asked[i]!.tool} ${JSON.stringify(asked[i]!.arguments)}: ${result.error?.message}`).toBe(true);
      expect(result.data).toMatchObject(asked[i]!.expect);
      const completed = gate.audit.forCall(result.meta.callId).find((record) => record.kind === 'completed');
      expect(completed?.payload).toMatchObject({ output: asked[i]!.expect });
    }
    expect(gate.audit.verify().ok).toBe(true);
  });

  it('lets only its own Pure tools share: reads, searches, writes, fetches and a module’s tools run alone', async () => {
    harness = await openGate({ grants: ['fs:read', 'fs:write', 'net:read'] });
    const { gate, workspace } = harness;
    writeFileSync(join(workspace, 'a.txt'), 'a\n');
    const limitsOf = new Map<string, CallLimits>();
    const run = gate.pool.run.bind(gate.pool);
    vi.spyOn(gate.pool, 'run').mockImplementation((request, limits, ...rest) => {
      limitsOf.set(request.tool, limits);
      return run(request, limits, ...rest);
    });
    const pure = [
      { tool: 'echo', arguments: { text: 'hi' } },
      { tool: 'hash', arguments: { text: 'hi' } },
      { tool: 'calculator', arguments: { expression: '1 + 1' } },
    ];
    for (const call of pure) expect((await gate.executor.call(call)).error).toBeUndefined();
    // A read's time and memory grow with what it reads: the calls sharing its process would wait for it.
    const reads = [
      { tool: 'read_file', arguments: { path: 'a.txt' } },
      { tool: 'list_dir', arguments: { path: '.' } },
      { tool: 'search_files', arguments: { query: 'a' } },
    ];
    for (const call of reads) expect((await gate.executor.call(call)).error).toBeUndefined();
    const written = gate.executor.call({ tool: 'write_file', arguments: { path: 'b.txt', content: 'b\n' } });
    gate.approvals.decide((await nextApproval(gate)).approvalId, 'approve');
    expect((await written).ok).toBe(true);
    // A fetch that ran again would reach its server again.
    const fetched = gate.executor.call({ tool: 'http_fetch', arguments: { url: 'https://example.invalid/' } });
    gate.approvals.decide((await nextApproval(gate)).approvalId, 'approve');
    await fetched;
    // A module's tool runs code that is not the gate's: what it leaves behind is its own process's.
    await gate.executor.call({ tool: 'crash', arguments: {} });
    for (const { tool } of pure) expect(limitsOf.get(tool), tool).toMatchObject({ mayShare: true });
    for (const tool of [...reads.map(({ tool }) => tool), 'write_file', 'http_fetch', 'crash']) expect(limitsOf.get(tool)?.mayShare, tool).toBe(false);
  });
});
